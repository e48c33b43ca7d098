#!/bin/bash
set -euo pipefail
cd /app/app
git checkout -q -b hotfix/1.2.1 v1.2.0
echo "1.2.1" > VERSION
git commit -q -am "Bump version to 1.2.1"
git log --oneline --decorate -3
