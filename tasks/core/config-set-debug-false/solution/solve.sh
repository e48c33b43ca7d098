#!/bin/bash
set -euo pipefail
sed -i 's/^DEBUG=.*/DEBUG=false/' /app/config/app.env
cat /app/config/app.env
