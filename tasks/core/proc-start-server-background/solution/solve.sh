#!/bin/bash
set -euo pipefail
cd /app
APP_PORT=8080 APP_MODE=production nohup python3 /app/server.py > /app/server.log 2>&1 &
for _ in $(seq 50); do
  grep -q "listening on port 8080" /app/server.log && break
  sleep 0.1
done
cat /app/server.log
