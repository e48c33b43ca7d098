#!/bin/bash
# Builds /app/tool whose history tracks build/ output and *.log files next to the sources.
set -euo pipefail
git config --global user.name "Ana Lopez"
git config --global user.email "ana@example.com"
export GIT_AUTHOR_DATE="2024-04-02T11:00:00+00:00" GIT_COMMITTER_DATE="2024-04-02T11:00:00+00:00"

git init -q -b main /app/tool
cd /app/tool
mkdir -p src build/obj logs
printf '__pycache__/\n*.pyc\n' > .gitignore
printf '# tool\n\nBuild with `make`.\n' > README.md
printf 'def main():\n    print("tool 0.3")\n' > src/main.py
printf 'def helper():\n    return 42\n' > src/util.py
printf 'all:\n\tmkdir -p build/obj\n\tpython3 -m py_compile src/*.py\n' > Makefile
git add -A
git commit -q -m "Sources of the tool"

printf '\x7fELF fake binary for tests\n' > build/tool
printf 'object code of main\n' > build/obj/main.o
printf 'object code of util\n' > build/obj/util.o
printf '2024-04-02 11:02:10 build started\n2024-04-02 11:02:14 build finished\n' > build.log
printf '2024-04-02 11:05:00 run ok\n' > logs/run.log
printf 'debug output\n' > src/debug.log
export GIT_AUTHOR_DATE="2024-04-03T11:00:00+00:00" GIT_COMMITTER_DATE="2024-04-03T11:00:00+00:00"
git add -A
git commit -q -m "Build and run"
