#!/bin/bash
set -euo pipefail
python3 - <<'PY'
import sqlite3

db = sqlite3.connect("/app/crm.db")
with db:
    keep = dict(db.execute("SELECT lower(email), min(id) FROM customers GROUP BY lower(email)").fetchall())
    for customer_id, email in db.execute("SELECT id, email FROM customers").fetchall():
        kept = keep[email.lower()]
        if customer_id != kept:
            db.execute("UPDATE orders SET customer_id = ? WHERE customer_id = ?", (kept, customer_id))
            db.execute("DELETE FROM customers WHERE id = ?", (customer_id,))
print(db.execute("SELECT count(*), count(DISTINCT lower(email)) FROM customers").fetchone())
PY
