#!/bin/bash
set -uo pipefail
cd /app/jobs
echo "script,exit_code" > /app/exit_codes.csv
for script in *.sh; do
  bash "$script" > /dev/null 2>&1 < /dev/null
  echo "$script,$?" >> /app/exit_codes.csv
done
cat /app/exit_codes.csv
