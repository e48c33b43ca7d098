#!/bin/bash
set -euo pipefail
sed -i 's/^log_level = info$/log_level = debug/' /app/app.conf
cat /app/app.conf
