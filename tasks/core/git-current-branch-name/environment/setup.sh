#!/bin/bash
# Builds /app/repo with the branches main, develop, feature/login and release-2024; release-2024 is checked out.
set -euo pipefail
git config --global user.name "Robin Okafor"
git config --global user.email "robin@example.com"

commit() {
    export GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1"
    git add -A
    git commit -q -m "$2"
}

git init -q -b main /app/repo
cd /app/repo
printf '# Timesheets\n\nTrack working hours per project.\n' > README.md
printf 'def hours(entries):\n    return sum(e["hours"] for e in entries)\n' > timesheets.py
commit "2024-03-04T09:00:00+00:00" "Sum the hours of a timesheet"
printf 'def overtime(total, limit=40):\n    return max(0, total - limit)\n' > overtime.py
commit "2024-03-06T09:00:00+00:00" "Compute overtime"

git checkout -q -b develop
printf 'def export_csv(rows):\n    return "\\n".join(",".join(map(str, row)) for row in rows)\n' > export.py
commit "2024-03-08T09:00:00+00:00" "Export timesheets as CSV"

git checkout -q -b feature/login
printf 'def login(user, password):\n    raise NotImplementedError\n' > auth.py
commit "2024-03-11T09:00:00+00:00" "Stub the login"

git checkout -q main
git checkout -q -b release-2024
printf '2024.1\n' > VERSION
commit "2024-03-12T09:00:00+00:00" "Release 2024.1"
