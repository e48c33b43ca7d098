"""Prints 1 when /app/package.json is valid JSON with version 2.0.0 and every other key as in the original, else 0."""

import json
import sys
from pathlib import Path


def main() -> int:
    expected = json.loads(Path("/tests/package.original.json").read_text())
    expected["version"] = "2.0.0"
    try:
        found = json.loads(Path("/app/package.json").read_text())
    except (OSError, ValueError) as e:
        print(f"/app/package.json is missing or not valid JSON: {e}", file=sys.stderr)
        return 0
    if not isinstance(found, dict) or found.get("version") != "2.0.0":
        print(f"the version is {found.get('version') if isinstance(found, dict) else None!r}, not '2.0.0'", file=sys.stderr)
        return 0
    if found != expected:
        changed = sorted(key for key in set(found) | set(expected) if found.get(key) != expected.get(key))
        print(f"other keys changed: {changed}", file=sys.stderr)
        return 0
    return 1


print(main())
