"""Reward 1 when /app/unique.txt is /app/urls.txt without repeated lines, in first-seen order, and urls.txt is unchanged."""

import hashlib
from pathlib import Path

URLS_SHA256 = "42d188fd6a6fe242366a0953634d9c63d6433c76d903473b8506180f9b20beb0"
UNIQUE_SHA256 = "4375d2fb22a2eb5240d095a3da1c8823fd4535f25ce7a71c09c49b225f2e09b9"


def sha256(path: Path) -> str:
    text = path.read_text().rstrip("\n") + "\n" if path.is_file() else ""
    return hashlib.sha256(text.encode()).hexdigest()


print(1 if sha256(Path("/app/urls.txt")) == URLS_SHA256 and sha256(Path("/app/unique.txt")) == UNIQUE_SHA256 else 0)
