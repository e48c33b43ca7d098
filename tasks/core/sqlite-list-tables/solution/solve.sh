#!/bin/bash
set -euo pipefail
python3 -c "
import sqlite3
db = sqlite3.connect('/app/inventory.db')
names = [row[0] for row in db.execute(\"SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name\")]
open('/app/tables.txt', 'w').write(''.join(name + '\n' for name in names))
"
cat /app/tables.txt
