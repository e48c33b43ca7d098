"""Reward 1 when /app/CHANGELOG.md is byte for byte the original with every MM/DD/YYYY date rewritten as YYYY-MM-DD."""

import hashlib
from pathlib import Path

EXPECTED_SHA256 = "dc4a60f176ebff12ce0f38a1f495d17e8151b0123b379cff919b8b24aaf11a8e"

changelog = Path("/app/CHANGELOG.md")
print(1 if changelog.is_file() and hashlib.sha256(changelog.read_bytes()).hexdigest() == EXPECTED_SHA256 else 0)
