#!/bin/bash
set -euo pipefail
cd /app
grep -E '^[A-Z_]+=' .env.example | while IFS= read -r line; do
  key=${line%%=*}
  grep -q "^$key=" .env || echo "$line" >> .env
done
cat .env
