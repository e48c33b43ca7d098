#!/bin/bash
set -euo pipefail
python3 -c "
import sqlite3
count = sqlite3.connect('/app/app.db').execute(\"SELECT count(*) FROM users WHERE status = 'active'\").fetchone()[0]
open('/app/active_users.txt', 'w').write(f'{count}\n')
"
cat /app/active_users.txt
