#!/bin/bash
set -euo pipefail
cd /app/notes
git init -q
git add .
git commit -q -m "Add my notes"
git log --stat
