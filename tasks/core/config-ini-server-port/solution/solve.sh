#!/bin/bash
set -euo pipefail
sed -i '/^\[server\]/,/^\[/ s/^port = .*/port = 9090/' /app/config/app.ini
cat /app/config/app.ini
