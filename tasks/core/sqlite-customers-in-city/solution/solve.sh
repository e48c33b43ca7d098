#!/bin/bash
set -euo pipefail
python3 -c "
import sqlite3
rows = sqlite3.connect('/app/crm.db').execute(\"SELECT name FROM customers WHERE city = 'Lyon' ORDER BY name\").fetchall()
print('\n'.join(name for (name,) in rows))
" > /app/lyon.txt
cat /app/lyon.txt
