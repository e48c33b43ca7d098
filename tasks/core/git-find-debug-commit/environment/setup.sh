#!/bin/bash
# Builds /app/webapp: a dozen commits, one of which (with an unrelated message) sets DEBUG = True in config/settings.py.
set -euo pipefail
export GIT_AUTHOR_NAME="Lee Park" GIT_AUTHOR_EMAIL="lee@example.com"
export GIT_COMMITTER_NAME="Lee Park" GIT_COMMITTER_EMAIL="lee@example.com"
day=10
commit() {
  export GIT_AUTHOR_DATE="2024-02-${day}T14:00:00+00:00" GIT_COMMITTER_DATE="2024-02-${day}T14:00:00+00:00"
  day=$((day + 1))
  git add -A
  git commit -q -m "$1"
}
settings() {
  cat > config/settings.py <<PY
DEBUG = $1
ALLOWED_HOSTS = [$2]
DATABASE_URL = "postgres://app@db/app"
CACHE_SECONDS = $3
PY
}

git init -q -b main /app/webapp
cd /app/webapp
mkdir -p config app tests
echo "# webapp" > README.md
settings False '"example.com"' 60
printf 'def index():\n    return "hello"\n' > app/views.py
commit "Initial project layout"

printf 'def index():\n    return "hello"\n\n\ndef health():\n    return "ok"\n' > app/views.py
commit "Add health endpoint"

settings False '"example.com", "www.example.com"' 60
commit "Allow the www host"

cat > tests/settings_test.py <<'PY'
from config.settings import *  # noqa: F403

DEBUG = True
DATABASE_URL = "sqlite://:memory:"
PY
commit "Test settings with an in-memory database"

printf '# webapp\n\nRun with `python3 -m app`.\n' > README.md
commit "Explain how to run the app"

settings False '"example.com", "www.example.com"' 300
commit "Cache pages for five minutes"

printf 'def index():\n    return "hello, world"\n\n\ndef health():\n    return "ok"\n' > app/views.py
commit "Friendlier greeting"

settings True '"example.com", "www.example.com"' 300
printf 'def index():\n    return "hello, world"\n\n\ndef health():\n    return {"status": "ok"}\n' > app/views.py
commit "Tidy up settings and views"

printf '# webapp\n\nRun with `python3 -m app`.\n\nHealth check: `/health`.\n' > README.md
commit "Document the health check"

settings True '"example.com", "www.example.com", "api.example.com"' 300
commit "Serve the API host"

cat >> tests/settings_test.py <<'PY'
CACHE_SECONDS = 0
PY
commit "No caching in tests"
