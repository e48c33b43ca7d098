"""claude-code: `.claude/skills/` (skills, and tools as skills with their scripts) and a `CLAUDE.md` with the instructions."""

from pathlib import Path

import jinja2

from harness_evo.harness.folder import Harness
from harness_evo.harness.formats.agent_skills import as_skills, skill_name
from harness_evo.harness.formats.base import TEMPLATES, Exported

SKILLS = ".claude/skills"


class ClaudeCode:
    name = "claude-code"

    def export(self, harness: Harness) -> Exported:
        skills = as_skills(harness, tool_dir=f"{SKILLS}/{{name}}")
        context = {
            "agent": harness.agent,
            "tools": [tool.model_dump() | {"folder": f"{SKILLS}/{skill_name(tool.name)}"} for tool in harness.tools],
            "skills": [skill.model_dump() | {"path": f"{SKILLS}/{skill_name(skill.name)}/SKILL.md"} for skill in harness.skills],
            "instruction": "(the task you are given)",
            "step": 1,
            "steps_left": harness.agent.step_limit,
        }
        instructions = TEMPLATES.get_template("CLAUDE.md.j2").render(
            harness=harness,
            system=render(harness, "system.md.j2", context),
            confirm=render(harness, "confirm_done.md.j2", context) if harness.has_template("confirm_done.md.j2") else "",
        )
        dropped = [path for path in harness.components if path.startswith("prompts/") and Path(path).name not in ("system.md.j2", "confirm_done.md.j2")]
        return Exported(
            files={"CLAUDE.md": instructions} | {f"{SKILLS}/{path}": text for path, text in skills.files.items()},
            lost=skills.lost + [
                "CLAUDE.md is the harness's system prompt rendered once; where it describes harness-evo's reply format "
                "(one fenced bash block per reply, TASK_DONE to finish) it does not apply to Claude Code, which has its own tools",
                f"{', '.join(dropped)}: Claude Code writes the task, observation and format-error messages itself",
                f"the agent settings of harness.toml (step limit {harness.agent.step_limit}, command timeout "
                f"{harness.agent.command_timeout_s:g} s, output cap {harness.agent.max_observation_chars} characters)",
                "tools are skills here: Claude Code runs their scripts as the skill says, they are not commands on the PATH",
            ],
            usage=["copy `CLAUDE.md` and `.claude/` into the root of the project Claude Code works in (merge with an existing CLAUDE.md)"],
        )


def render(harness: Harness, template: str, context: dict) -> str:
    """A prompt rendered outside the agent loop: variables only the loop knows render as nothing."""
    return jinja2.Environment(keep_trailing_newline=True).from_string(harness.components[f"prompts/{template}"]).render(context).strip()
