"""Markdown files that start with a `---` YAML block: skills (SKILL.md) and examples (examples/<name>.md)."""

from typing import Any

import yaml

from harness_evo.errors import HarnessError


def split_frontmatter(text: str, where: str, needs: str = "name and description") -> tuple[dict[str, Any], str]:
    """(frontmatter, body) of a markdown file that starts with a `---` YAML block; `needs` says what the block holds."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---" or "---" not in [line.strip() for line in lines[1:]]:
        raise HarnessError(f"{where}: missing `---` frontmatter with {needs}")
    end = [line.strip() for line in lines[1:]].index("---") + 1
    try:
        front = yaml.safe_load("\n".join(lines[1:end])) or {}
    except yaml.YAMLError as e:
        raise HarnessError(f"{where}: bad frontmatter: {str(e).splitlines()[0]}") from None
    if not isinstance(front, dict):
        raise HarnessError(f"{where}: frontmatter must be a mapping")
    return front, "\n".join(lines[end + 1 :]).strip() + "\n"


def frontmatter(fields: dict[str, Any], body: str) -> str:
    """`body` under a `---` YAML block of `fields`, in their order."""
    return "---\n" + yaml.safe_dump(fields, sort_keys=False, allow_unicode=True, width=float("inf")) + "---\n" + body
