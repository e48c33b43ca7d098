#!/bin/bash
cat > /app/colsum.py <<'PY'
"""Prints the sum of a named column of a CSV file, skipping empty cells."""

import csv
import sys
from decimal import Decimal

path, column = sys.argv[1], sys.argv[2]
with open(path, newline="") as source:
    reader = csv.DictReader(source)
    if column not in (reader.fieldnames or []):
        print(f"{path}: no column named {column!r}", file=sys.stderr)
        sys.exit(2)
    total = sum((Decimal(row[column]) for row in reader if row[column].strip()), Decimal(0))
print(f"{total:.2f}")
PY
