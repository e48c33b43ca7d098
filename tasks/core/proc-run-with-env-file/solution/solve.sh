#!/bin/bash
set -euo pipefail
set -a
. /app/config/prod.env
set +a
/app/bin/report > /app/report.txt
cat /app/report.txt
