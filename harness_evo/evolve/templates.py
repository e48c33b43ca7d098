"""The role prompts of the evolution loop: Jinja2 templates in `prompts/` next to this file."""

from pathlib import Path
from typing import Any

import jinja2

_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "prompts"),
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=False,
    autoescape=False,
    trim_blocks=True,
    lstrip_blocks=True,
)


def render(name: str, **context: Any) -> str:
    return _ENV.get_template(name).render(**context).strip()


def messages(role: str, **context: Any) -> list[dict]:
    """The system and user messages of a role, from `<role>.system.md.j2` and `<role>.user.md.j2`."""
    return [
        {"role": "system", "content": render(f"{role}.system.md.j2", **context)},
        {"role": "user", "content": render(f"{role}.user.md.j2", **context)},
    ]
