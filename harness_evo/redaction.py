"""The secrets of this process's environment (API keys, tokens, passwords), kept out of what harness-evo writes.

A model server may quote the key it was sent in its error message (a careless proxy does); such a message reaches
`run.db`, trajectories, the terminal and crash logs unless `redact` takes the key out first.
"""

import os
import re

SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD)S?$", re.IGNORECASE)
"""Environment variables whose value is a secret: OPENAI_API_KEY, HF_TOKEN, AWS_SECRET_ACCESS_KEY, ..."""
SECRET_PARAM = re.compile(r"(^|_)(key|token|secret|password)$", re.IGNORECASE)
"""Model call parameters whose value is a secret: api_key, access_token, ... (not max_tokens)."""
FROM_ENV = "env:"
"""A secret parameter's value `env:NAME` is the value of the environment variable NAME, read when the call is made."""
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


def from_env(params: dict[str, object]) -> dict[str, object]:
    """`params` with each `env:NAME` value replaced by that environment variable's value; KeyError names one unset."""
    return {
        name: os.environ[value.removeprefix(FROM_ENV)]
        if isinstance(value, str) and value.startswith(FROM_ENV)
        else value
        for name, value in params.items()
    }
