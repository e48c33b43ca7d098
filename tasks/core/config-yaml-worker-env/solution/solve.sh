#!/bin/bash
set -euo pipefail
sed -i 's|^      - REDIS_URL=redis://redis:6379/0$|&\n      - LOG_LEVEL=debug\n      - QUEUE_NAME=emails|' /app/deploy/compose.yaml
cat /app/deploy/compose.yaml
