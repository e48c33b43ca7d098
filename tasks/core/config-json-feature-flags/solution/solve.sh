#!/bin/bash
set -euo pipefail
python3 - <<'PY'
import json

path = "/app/config/settings.json"
with open(path) as f:
    settings = json.load(f)
features = settings["features"]
features["beta_search"]["enabled"] = True
del features["legacy_export"]
features["dark_mode"] = {"enabled": True, "rollout_percent": 25}
with open(path, "w") as f:
    json.dump(settings, f, indent=2)
    f.write("\n")
PY
cat /app/config/settings.json
