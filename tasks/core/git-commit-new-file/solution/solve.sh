#!/bin/bash
set -euo pipefail
cd /app/notes
git add todo.md
git commit -q -m "Add todo list"
git log --oneline -n 3
git status --short
