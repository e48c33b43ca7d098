#!/bin/bash
set -euo pipefail
python3 - <<'PY'
import sqlite3

db = sqlite3.connect("/app/users.db")
rows = db.execute("SELECT id, email FROM users").fetchall()
db.executemany("UPDATE users SET email = ? WHERE id = ?", [(email.strip().lower(), user_id) for user_id, email in rows])
db.commit()
print(db.execute("SELECT id, email FROM users LIMIT 5").fetchall())
PY
