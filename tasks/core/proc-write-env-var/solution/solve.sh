#!/bin/bash
set -euo pipefail
printf '%s\n' "$APP_RELEASE" > /app/release.txt
cat /app/release.txt
