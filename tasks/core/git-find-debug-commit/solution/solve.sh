#!/bin/bash
set -euo pipefail
cd /app/webapp
git log -S "DEBUG = True" --format=%H -- config/settings.py | tail -n 1 > /app/answer.txt
cat /app/answer.txt
