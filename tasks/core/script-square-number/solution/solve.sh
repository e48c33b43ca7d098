#!/bin/bash
cat > /app/square.py <<'PY'
import sys

n = int(sys.argv[1])
print(n * n)
PY
python3 /app/square.py 7
