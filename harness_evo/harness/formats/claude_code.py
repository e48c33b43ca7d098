"""claude-code: `.claude/skills/` (skills, and tools as skills with their scripts) and a `CLAUDE.md` with the instructions."""

from harness_evo.harness.folder import Harness
from harness_evo.harness.formats.agent_skills import as_skills, instructions, lost_prompts
from harness_evo.harness.formats.base import Exported

SKILLS = ".claude/skills"


class ClaudeCode:
    name = "claude-code"

    def export(self, harness: Harness) -> Exported:
        skills = as_skills(harness, tool_dir=f"{SKILLS}/{{name}}")
        return Exported(
            files={"CLAUDE.md": instructions(harness, skills_root=f"{SKILLS}/")} | {f"{SKILLS}/{path}": text for path, text in skills.files.items()},
            lost=skills.lost + lost_prompts(harness, "Claude Code") + [
                "tools are skills here: Claude Code runs their scripts as the skill says, they are not commands on the PATH",
            ],
            usage=["copy `CLAUDE.md` and `.claude/` into the root of the project Claude Code works in (merge with an existing CLAUDE.md)"],
        )
