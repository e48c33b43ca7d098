"""Imports the named files from $DATA_DIR, logging at $LOG_LEVEL; exits 4 when a file is missing."""

import json
import os
import sys

level = os.environ.get("LOG_LEVEL", "warning")
data_dir = os.environ.get("DATA_DIR", "/var/lib/importer")
names = sys.argv[1:]
missing = [name for name in names if not os.path.isfile(os.path.join(data_dir, name))]
print(json.dumps({"log_level": level, "data_dir": data_dir, "files": names, "missing": missing}))
sys.exit(4 if missing else 0)
