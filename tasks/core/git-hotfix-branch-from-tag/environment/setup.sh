#!/bin/bash
# Builds /app/app with releases tagged v1.1.0 and v1.2.0 and main moved on past them.
set -euo pipefail
git config --global user.name "Kai Weber"
git config --global user.email "kai@example.com"
day=10
commit() {
  export GIT_AUTHOR_DATE="2024-06-${day}T16:00:00+00:00" GIT_COMMITTER_DATE="2024-06-${day}T16:00:00+00:00"
  day=$((day + 1))
  git add -A
  git commit -q -m "$1"
}

git init -q -b main /app/app
cd /app/app
echo "1.1.0" > VERSION
printf 'def greet(name):\n    return f"Hello {name}"\n' > greet.py
commit "Release 1.1.0"
git tag v1.1.0

printf 'def greet(name):\n    return f"Hello, {name}!"\n' > greet.py
commit "Punctuate the greeting"
echo "1.2.0" > VERSION
commit "Release 1.2.0"
git tag -a v1.2.0 -m "Version 1.2.0"

printf 'def greet(name, loud=False):\n    text = f"Hello, {name}!"\n    return text.upper() if loud else text\n' > greet.py
commit "Loud greetings"
echo "1.3.0-dev" > VERSION
commit "Start 1.3 development"
