#!/bin/bash
set -euo pipefail
python3 - <<'PY'
import json

path = "/app/config/service.json"
with open(path) as f:
    config = json.load(f)
config["database"]["timeout_seconds"] = 30
with open(path, "w") as f:
    json.dump(config, f, indent=2)
    f.write("\n")
PY
cat /app/config/service.json
