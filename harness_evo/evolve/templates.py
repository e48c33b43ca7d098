"""The role prompts of the evolution loop: Jinja2 templates in `prompts/` next to this file."""

from pathlib import Path

from harness_evo.llm.prompts import RolePrompts

_PROMPTS = RolePrompts(Path(__file__).parent / "prompts")
render = _PROMPTS.render
messages = _PROMPTS.messages
