#!/bin/bash
set -euo pipefail
zcat -f /app/logs/sync.log* | grep -c 'job=nightly-sync run=[0-9]* status=failed' > /app/answer.txt
cat /app/answer.txt
