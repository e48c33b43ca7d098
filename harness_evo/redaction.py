"""The secrets of this process's environment (API keys, tokens, passwords), kept out of what harness-evo writes.

A model server may quote the key it was sent in its error message (a careless proxy does); such a message reaches
`run.db`, trajectories, the terminal and crash logs unless `redact` takes the key out first.
"""

import os
import re

SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD)S?$", re.IGNORECASE)
"""Environment variables whose value is a secret: OPENAI_API_KEY, HF_TOKEN, AWS_SECRET_ACCESS_KEY, ..."""
SHORTEST = 8
"""Values shorter than this are left alone: `1` or `true` is no secret, and would be replaced everywhere."""


def secrets() -> dict[str, str]:
    """Name -> value of each secret in the environment now."""
    return {name: value for name, value in os.environ.items() if SECRET_NAME.search(name) and len(value) >= SHORTEST}


def redact(text: str) -> str:
    """`text` with the value of every secret of the environment replaced by `[NAME]`."""
    for name, value in sorted(secrets().items(), key=lambda item: -len(item[1])):
        text = text.replace(value, f"[{name}]")
    return text
