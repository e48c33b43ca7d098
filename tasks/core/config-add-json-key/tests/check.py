"""Prints 1 when service.json is valid JSON equal to the original plus database.timeout_seconds = 30 (a number), else 0."""

import json
import sys
from pathlib import Path

EXPECTED = {
    "name": "billing",
    "port": 8080,
    "timeout_seconds": 10,
    "database": {"host": "db.internal", "port": 5432, "name": "billing", "pool_size": 10, "timeout_seconds": 30},
    "cache": {"backend": "redis", "url": "redis://cache.internal:6379/0"},
    "features": ["invoices", "refunds"],
}


def main() -> int:
    path = Path("/app/config/service.json")
    if not path.is_file():
        print("/app/config/service.json is missing", file=sys.stderr)
        return 0
    try:
        found = json.loads(path.read_text(errors="replace"))
    except json.JSONDecodeError as e:
        print(f"/app/config/service.json is not valid JSON: {e}", file=sys.stderr)
        return 0
    timeout = found.get("database", {}).get("timeout_seconds") if isinstance(found, dict) and isinstance(found.get("database"), dict) else None
    if type(timeout) is not int:
        print(f"database.timeout_seconds is {timeout!r}, not the number 30", file=sys.stderr)
        return 0
    if found != EXPECTED:
        print(f"the settings are {found}, expected {EXPECTED}", file=sys.stderr)
        return 0
    return 1


print(main())
