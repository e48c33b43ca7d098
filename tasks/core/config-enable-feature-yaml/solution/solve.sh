#!/bin/bash
set -euo pipefail
sed -i 's/^dark_mode: false$/dark_mode: true/' /app/features.yaml
cat /app/features.yaml
