#!/bin/bash
set -euo pipefail
{
  echo "hour,errors"
  grep -E '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:,]+ ERROR ' /app/logs/app.log | cut -c1-13 | sort | uniq -c | awk '{print $2 " " $3 "," $1}'
} > /app/errors_per_hour.csv
cat /app/errors_per_hour.csv
