"""Prints 1 when /app/features.yaml still parses, dark_mode is true (set once, not repeated) and every other flag is
as in the original, else 0."""

import re
import sys
from pathlib import Path

import yaml


def main() -> int:
    expected = yaml.safe_load(Path("/tests/features.original.yaml").read_text())
    expected["dark_mode"] = True
    try:
        text = Path("/app/features.yaml").read_text()
        found = yaml.safe_load(text)
    except (OSError, yaml.YAMLError) as e:
        print(f"/app/features.yaml is missing or not valid YAML: {e}", file=sys.stderr)
        return 0
    if not isinstance(found, dict) or found.get("dark_mode") is not True:
        print(f"dark_mode is {found.get('dark_mode') if isinstance(found, dict) else None!r}, not true", file=sys.stderr)
        return 0
    if len(re.findall(r"^dark_mode\s*:", text, re.MULTILINE)) != 1:
        print("/app/features.yaml sets dark_mode more than once", file=sys.stderr)
        return 0
    if found != expected:
        changed = sorted(key for key in set(found) | set(expected) if found.get(key) != expected.get(key))
        print(f"other flags changed: {changed}", file=sys.stderr)
        return 0
    return 1


print(main())
