"""The role prompts of the evolution loop: Jinja2 templates in `prompts/` next to this file."""

from pathlib import Path
from typing import Any

from harness_evo.templating import environment

_ENV = environment(Path(__file__).parent / "prompts")


def render(name: str, **context: Any) -> str:
    return _ENV.get_template(name).render(**context).strip()


def messages(role: str, **context: Any) -> list[dict]:
    """The system and user messages of a role, from `<role>.system.md.j2` and `<role>.user.md.j2`."""
    return [
        {"role": "system", "content": render(f"{role}.system.md.j2", **context)},
        {"role": "user", "content": render(f"{role}.user.md.j2", **context)},
    ]
