"""Prints 1 when settings.json is valid JSON with exactly the three requested flag changes, else 0."""

import json
import sys
from pathlib import Path

EXPECTED = {
    "service": {"name": "catalog", "port": 8080, "base_url": "https://catalog.example.com"},
    "features": {
        "new_checkout": {"enabled": True, "rollout_percent": 100},
        "beta_search": {"enabled": True, "rollout_percent": 100, "index": "products-v2"},
        "dark_mode": {"enabled": True, "rollout_percent": 25},
        "recommendations": {"enabled": False, "rollout_percent": 10},
    },
    "limits": {"max_page_size": 200, "requests_per_minute": 600, "beta_search_qps": 20},
    "admins": ["ops@example.com", "lead@example.com"],
}


def main() -> int:
    try:
        settings = json.loads(Path("/app/config/settings.json").read_text())
    except (OSError, ValueError) as e:
        print(f"/app/config/settings.json is not readable JSON: {e}", file=sys.stderr)
        return 0
    if settings != EXPECTED:
        print(f"settings.json is {json.dumps(settings)}", file=sys.stderr)
        return 0
    return 1


print(main())
