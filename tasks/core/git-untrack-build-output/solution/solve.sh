#!/bin/bash
set -euo pipefail
cd /app/tool
printf 'build/\n*.log\n' >> .gitignore
git rm -r -q --cached build
git ls-files -z '*.log' | xargs -0 git rm -q --cached
git add .gitignore
git commit -q -m "Stop tracking build output and logs"
git status --short --ignored
