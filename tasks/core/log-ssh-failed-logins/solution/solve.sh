#!/bin/bash
set -euo pipefail
grep 'Failed password for' /app/logs/auth.log | sed -E 's/.* from ([0-9.]+) port .*/\1/' | sort | uniq -c | awk '$1 >= 5 {print $2, $1}' | sort -k2,2nr > /app/suspects.txt
cat /app/suspects.txt
