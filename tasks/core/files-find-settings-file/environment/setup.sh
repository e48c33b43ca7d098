#!/bin/bash
# Builds a small project tree under /app/project with exactly one settings.yaml a few folders deep.
set -euo pipefail
mkdir -p /app/project/docs /app/project/scripts /app/project/services/api/config /app/project/services/api/src \
    /app/project/services/worker/src /app/project/tests
cd /app/project
printf '# billing-platform\n\nAPI and background worker for invoices.\n' > README.md
printf 'flask==3.0.0\nrequests==2.31.0\n' > requirements.txt
printf '# Architecture\n\nThe API hands jobs to the worker.\n' > docs/architecture.md
printf '#!/bin/bash\necho "deploying..."\n' > scripts/deploy.sh
printf 'from flask import Flask\n\napp = Flask(__name__)\n' > services/api/src/app.py
printf 'def route_invoice(invoice):\n    return invoice["id"]\n' > services/api/src/routes.py
printf 'server:\n  host: 0.0.0.0\n  port: 8080\ndatabase:\n  url: postgres://db:5432/billing\n  pool_size: 5\n' \
    > services/api/config/settings.yaml
printf 'import time\n\nwhile True:\n    time.sleep(5)\n' > services/worker/src/worker.py
printf 'def test_nothing():\n    assert True\n' > tests/test_app.py
