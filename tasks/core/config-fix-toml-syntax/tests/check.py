"""Prints 1 when service.toml parses to exactly the intended settings, else 0."""

import sys
import tomllib
from pathlib import Path

EXPECTED = {
    "service": {"name": "billing-api", "version": "2.7.1", "debug": False},
    "server": {"bind": "0.0.0.0", "port": 8443, "allowed_origins": ["https://shop.example.com", "https://admin.example.com"]},
    "database": {"url": "postgres://billing@db.internal:5432/billing", "pool_size": 12, "timeout_seconds": 7.5},
    "invoices": {"prefix": "INV-", "due_days": 30, "currencies": ["EUR", "USD", "GBP"], "reminders": {"enabled": True, "after_days": [7, 14, 30]}},
}


def main() -> int:
    try:
        settings = tomllib.loads(Path("/app/config/service.toml").read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        print(f"/app/config/service.toml does not parse: {e}", file=sys.stderr)
        return 0
    if settings != EXPECTED:
        print(f"service.toml parses to {settings}", file=sys.stderr)
        return 0
    return 1


print(main())
