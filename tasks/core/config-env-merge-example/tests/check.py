"""Prints 1 when /app/.env keeps its values, gained exactly the settings missing from .env.example, and
defines nothing twice, else 0."""

import sys
from pathlib import Path

EXPECTED = {
    "APP_ENV": "production",
    "APP_PORT": "8443",
    "DATABASE_URL": "postgres://invoicing:s3cr3t@db.internal:5432/invoicing",
    "SECRET_KEY": "9f2c1e7a55b04d8e",
    "SMTP_HOST": "mail.internal",
    "SMTP_PORT": "2525",
    "LOG_LEVEL": "warning",
    "SMTP_FROM": "invoices@example.com",
    "LOG_FORMAT": "json",
    "PDF_RENDERER_URL": "http://renderer:3000",
    "PDF_TIMEOUT_SECONDS": "30",
    "INVOICE_PREFIX": "INV-",
}


def settings(text: str) -> list[tuple[str, str]]:
    pairs = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            key, value = line.removeprefix("export ").split("=", 1)
            pairs.append((key.strip(), value.strip().strip("\"'")))
    return pairs


def main() -> int:
    path = Path("/app/.env")
    pairs = settings(path.read_text(errors="replace")) if path.is_file() else []
    keys = [key for key, _ in pairs]
    twice = sorted({key for key in keys if keys.count(key) > 1})
    if twice:
        print(f"defined more than once: {twice}", file=sys.stderr)
        return 0
    if dict(pairs) != EXPECTED:
        wrong = sorted(key for key in EXPECTED.keys() | dict(pairs).keys() if dict(pairs).get(key) != EXPECTED.get(key))
        print(f"wrong, missing or extra settings: {wrong}", file=sys.stderr)
        return 0
    return 1


print(main())
