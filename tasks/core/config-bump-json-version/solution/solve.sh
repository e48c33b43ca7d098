#!/bin/bash
set -euo pipefail
sed -i 's/"version": "1.3.7"/"version": "2.0.0"/' /app/package.json
cat /app/package.json
