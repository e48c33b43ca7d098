#!/bin/bash
set -euo pipefail
python3 -c "
import sqlite3
db = sqlite3.connect('/app/shop.db')
(count,) = db.execute(\"SELECT count(*) FROM orders WHERE placed_at >= '2024-03-01' AND placed_at < '2024-04-01'\").fetchone()
print(count)
" > /app/answer.txt
cat /app/answer.txt
