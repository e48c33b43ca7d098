#!/bin/bash
# Builds /app/calc with a fix to calc.py in the working tree, next to unrelated uncommitted work.
# The identity is only set for these build commits: git has no user configured afterwards.
set -euo pipefail
export GIT_AUTHOR_NAME="Noor Haddad" GIT_AUTHOR_EMAIL="noor@example.com"
export GIT_COMMITTER_NAME="Noor Haddad" GIT_COMMITTER_EMAIL="noor@example.com"
export GIT_AUTHOR_DATE="2024-07-01T12:00:00+00:00" GIT_COMMITTER_DATE="2024-07-01T12:00:00+00:00"

git init -q -b main /app/calc
cd /app/calc
printf '# calc\n\nA tiny calculator library.\n' > README.md
cat > calc.py <<'PY'
def add(a, b):
    return a + b


def divide(a, b):
    return a / b
PY
git add -A
git commit -q -m "Add and divide"
export GIT_AUTHOR_DATE="2024-07-02T12:00:00+00:00" GIT_COMMITTER_DATE="2024-07-02T12:00:00+00:00"
cat >> calc.py <<'PY'


def average(numbers):
    return divide(sum(numbers), len(numbers))
PY
git commit -q -am "Average of numbers"

cat > calc.py <<'PY'
def add(a, b):
    return a + b


def divide(a, b):
    if b == 0:
        raise ValueError("cannot divide by zero")
    return a / b


def average(numbers):
    return divide(sum(numbers), len(numbers))
PY
printf '# calc\n\nA tiny calculator library.\n\n## Usage (draft)\n\n    from calc import average\n' > README.md
printf 'todo: median, mode\n' > notes.txt
