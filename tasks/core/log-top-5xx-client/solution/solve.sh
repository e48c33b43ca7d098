#!/bin/bash
set -euo pipefail
awk '$9 ~ /^5[0-9][0-9]$/ {count[$1]++} END {for (ip in count) print count[ip], ip}' /app/logs/access.log | sort -rn | head -n 1 | cut -d' ' -f2 > /app/answer.txt
cat /app/answer.txt
