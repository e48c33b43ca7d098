#!/bin/bash
python3 -c "import sqlite3; print(sqlite3.connect('/app/store.db').execute('SELECT max(price) FROM products').fetchone()[0])" > /app/max_price.txt
cat /app/max_price.txt
