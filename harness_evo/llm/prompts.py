"""Role prompts: Jinja2 templates `<role>.system.md.j2` and `<role>.user.md.j2` in a folder next to the code that uses
them."""

from pathlib import Path
from typing import Any

from harness_evo.templating import environment


class RolePrompts:
    """The templates of one folder; an undefined variable is an error."""

    def __init__(self, folder: Path):
        self.env = environment(folder)

    def render(self, name: str, **context: Any) -> str:
        return self.env.get_template(name).render(**context).strip()

    def messages(self, role: str, **context: Any) -> list[dict]:
        """The system and user messages of a role, from `<role>.system.md.j2` and `<role>.user.md.j2`."""
        return [
            {"role": "system", "content": self.render(f"{role}.system.md.j2", **context)},
            {"role": "user", "content": self.render(f"{role}.user.md.j2", **context)},
        ]
