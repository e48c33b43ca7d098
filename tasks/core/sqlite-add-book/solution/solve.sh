#!/bin/bash
set -euo pipefail
python3 -c "
import sqlite3
db = sqlite3.connect('/app/library.db')
db.execute(\"INSERT INTO books (title, author, year) VALUES ('Dune', 'Frank Herbert', 1965)\")
db.commit()
print(db.execute('SELECT * FROM books').fetchall())
"
