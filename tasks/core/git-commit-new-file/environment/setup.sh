#!/bin/bash
# Builds /app/notes: two commits, then an untracked todo.md and an uncommitted edit of README.md.
set -euo pipefail
git config --global user.name "Sam Rivera"
git config --global user.email "sam@example.com"
export GIT_AUTHOR_DATE="2024-05-06T09:00:00+00:00" GIT_COMMITTER_DATE="2024-05-06T09:00:00+00:00"

git init -q -b main /app/notes
cd /app/notes
printf '# Notes\n\nPersonal notes and plans.\n' > README.md
mkdir -p meetings
printf '# Weekly sync 2024-05-06\n\n- release moved to Friday\n' > meetings/2024-05-06.md
git add -A
git commit -q -m "Start notes"

export GIT_AUTHOR_DATE="2024-05-13T09:00:00+00:00" GIT_COMMITTER_DATE="2024-05-13T09:00:00+00:00"
printf '# Weekly sync 2024-05-13\n\n- new hire starts in June\n' > meetings/2024-05-13.md
git add -A
git commit -q -m "Notes of the 2024-05-13 sync"

printf '# TODO\n\n- [ ] renew the TLS certificate\n- [ ] book the team offsite\n- [x] send the May invoice\n' > todo.md
printf '\nSee meetings/ for the weekly syncs.\n' >> README.md
