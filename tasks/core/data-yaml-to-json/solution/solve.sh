#!/bin/bash
python3 - <<'PY'
import json

import yaml

with open("/app/config.yaml") as source:
    config = yaml.safe_load(source)
with open("/app/config.json", "w") as target:
    json.dump(config, target, indent=2, default=str)
PY
