#!/bin/bash
set -euo pipefail
python3 - <<'PY'
import sqlite3

db = sqlite3.connect("/app/library.db")
tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
with open("/app/counts.txt", "w") as f:
    for table in tables:
        (count,) = db.execute(f'SELECT count(*) FROM "{table}"').fetchone()
        f.write(f"{table} {count}\n")
PY
cat /app/counts.txt
