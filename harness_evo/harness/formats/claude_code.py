"""claude-code: a Claude Code project: `CLAUDE.md` (what the agent should know), `.claude/skills/` (skills, and tools as
skills with their scripts under `${CLAUDE_SKILL_DIR}`), a subagent in `.claude/agents/`, and `.claude/settings.json`.

Claude Code has its own tool loop, so the sentences of the system prompt that describe harness-evo's (one fenced bash
block per reply, TASK_DONE to finish) are left out of CLAUDE.md and named in EXPORT.md. The harness's prompts and
settings ride along, as they are, in `.claude/harness-evo/`, so that an import gives the same harness back.
"""

import json
import re
import shlex
import tomllib
from pathlib import Path

from harness_evo.errors import UserError
from harness_evo.harness.features import not_carried
from harness_evo.harness.folder import SKILL_DIR, Harness
from harness_evo.harness.formats.agent_skills import (
    PROJECT_SKILLS,
    SkillsRead,
    as_skills,
    over_carried_or_base,
    read_skills,
    render,
    skill_file,
    skill_name,
)
from harness_evo.harness.formats.base import CARRIED, TEMPLATES, Exported, Imported, carried, read_carried
from harness_evo.harness.frontmatter import frontmatter, split_frontmatter
from harness_evo.harness.settings_edit import set_setting

LOOP_RULES = re.compile(
    r"TASK_DONE|fenced bash block|bash block|\bblocks?\b.*\bruns?\b|\b(your|each|every|per|next) repl(y|ies)\b|"
    r"\breply with\b|run for you|like any command|You then see its output",
    re.IGNORECASE,
)
"""Sentences that describe harness-evo's agent loop (reply format, finish marker, how tools are run), which Claude Code
replaces by its own."""
SENTENCE_END = re.compile(r"(?<=[.!?:])\s+(?=[A-Z`(])")
LIST_ITEM = re.compile(r"^\s*([-*+]|\d+[.)])\s")
PROMPTS_IN_CLAUDE_MD = ("prompts/system.md.j2", "prompts/confirm_done.md.j2")
SETTINGS = ".claude/settings.json"
AGENTS = ".claude/agents"
COMMANDS = ".claude/commands"


class ClaudeCode:
    name = "claude-code"

    def export(self, harness: Harness) -> Exported:
        skills = as_skills(harness, tool_dir=SKILL_DIR)
        knowledge, dropped = project_instructions(harness)
        names = sorted({path.split("/")[0] for path in skills.files})
        agent = skill_name(harness.name)
        files = {
            "CLAUDE.md": knowledge,
            f"{AGENTS}/{agent}.md": frontmatter(subagent_fields(harness, agent, names), knowledge.split("\n", 2)[-1]),
            SETTINGS: json.dumps(settings(harness), indent=2) + "\n",
        }
        files |= {f"{PROJECT_SKILLS}/{path}": text for path, text in skills.files.items()}
        files |= {f".claude/{path}": text for path, text in carried(harness).items()}
        lost = skills.lost + [
            f"left out of CLAUDE.md as harness-evo's own loop rules (Claude Code has its own tool loop): «{sentence}»"
            for sentence in dropped
        ]
        if others := [
            path for path in harness.components if path.startswith("prompts/") and path not in PROMPTS_IN_CLAUDE_MD
        ]:
            lost.append(
                f"{', '.join(others)}: Claude Code writes the task, observation and format-error messages itself"
            )
        lost += [
            f"the step limit ({harness.agent.step_limit}) is the subagent's `maxTurns` (and `claude -p --max-turns`); "
            f"the command timeout ({harness.agent.command_timeout_s:g} s) and output cap "
            f"({harness.agent.max_observation_chars} characters) are BASH_DEFAULT_TIMEOUT_MS and "
            f"BASH_MAX_OUTPUT_LENGTH in {SETTINGS}"
        ]
        if sampling := harness.sampling.model_dump(exclude_defaults=True):
            lost.append(f"the sampling settings {sampling}: Claude Code does not let a project set them")
        if harness.confirms_done and not harness.has_template("confirm_done.md.j2"):
            lost.append("confirm_done: Claude Code does not ask the agent to confirm that it is done")
        lost += not_carried(harness, "Claude Code", commands_carried=True)
        assets = {f"{PROJECT_SKILLS}/{path}": data for path, data in skills.assets.items()}
        return Exported(
            files=files,
            lost=lost,
            assets=assets,
            usage=[
                "copy `CLAUDE.md` and `.claude/` into the root of the project Claude Code works in (merge with an "
                "existing CLAUDE.md)",
                f'`claude -p --max-turns {harness.agent.step_limit} "TASK"` runs a task with it; or ask Claude Code to '
                "use the "
                f"`{agent}` subagent",
                "`harness-evo import claude-code DIR --out HARNESS` gives this harness back (prompts and settings "
                f"from .claude/{CARRIED}/)",
            ]
            + (
                [
                    f"the SessionStart hook in {SETTINGS} runs the workspace discovery commands "
                    f"({'; '.join(harness.agent.discovery_commands)}) when a session starts, and Claude Code adds what "
                    "they print to its context"
                ]
                if "hooks" in settings(harness)
                else []
            ),
        )

    def load(self, source: Path, base: Harness | None) -> Imported:
        root = project_root(Path(source))
        skills = root / PROJECT_SKILLS
        read = (
            read_skills(root)
            if skills.is_dir() and any(skill_file(p) for p in skills.iterdir() if p.is_dir())
            else SkillsRead()
        )
        generated = self._generated(root, read)
        for kind, folder in (("subagent", AGENTS), ("command", COMMANDS)):
            for path in sorted((root / folder).rglob("*.md")) if (root / folder).is_dir() else []:
                if path.relative_to(root).as_posix() not in generated:
                    read.components |= markdown_as_skill(path, (root / folder), kind, read)
        claude_md = root / "CLAUDE.md"
        if read.carried is None and claude_md.is_file():
            if base is None:
                raise UserError(
                    f"{root}: CLAUDE.md goes into a system prompt, and the project has none: pass --base HARNESS"
                )
            base = with_project_instructions(base, claude_md, read.notes)
        elif not read.components and read.carried is None:
            raise UserError(f"{root}: nothing to import (no CLAUDE.md, and no skill, subagent or command in .claude/)")
        components, assets = over_carried_or_base(read, base, root)
        if read.carried is None:
            toml = set_setting(components["harness.toml"], "harness", "name", root.resolve().name)
            components["harness.toml"] = set_setting(
                toml, "harness", "description", f"Imported from the Claude Code project {root.resolve().name}."
            )
        harness = Harness(components, source=str(root), assets=assets)
        if generated:
            self._changed(root, harness, read.notes)
        return Imported(harness=harness, notes=read.notes)

    def _generated(self, root: Path, read: SkillsRead) -> set[str]:
        """The files an export of harness-evo wrote from the prompts it carried (they are not imported again)."""
        read.carried = read.carried or read_carried(root / ".claude")
        if read.carried is None:
            return set()
        try:
            name = skill_name(str(tomllib.loads(read.carried["harness.toml"])["harness"]["name"]))
        except (tomllib.TOMLDecodeError, KeyError, TypeError):
            raise UserError(f"{root}/.claude/{CARRIED}/harness.toml: no [harness] name") from None
        return {"CLAUDE.md", SETTINGS, f"{AGENTS}/{name}.md"}

    def _changed(self, root: Path, harness: Harness, notes: list[str]) -> None:
        """A note for each file the export wrote that is no longer as it wrote it: the prompts it carried were used."""
        for path, text in self.export(harness).files.items():
            if not path.startswith(PROJECT_SKILLS) and (root / path).is_file() and (root / path).read_text() != text:
                notes.append(
                    f"{path} was changed after the export; the harness takes its prompts and settings from "
                    f".claude/{CARRIED}/, so carry the change into them by hand"
                )


def project_instructions(harness: Harness) -> tuple[str, list[str]]:
    """CLAUDE.md: the system prompt (and its check before finishing) rendered without tools or skills (Claude Code lists
    skills itself) and without harness-evo's loop rules; and the sentences left out."""
    context = {
        "agent": harness.agent,
        "tools": [],
        "skills": [],
        "instruction": "(the task you are given)",
        "step": 1,
        "steps_left": harness.agent.step_limit,
    }
    system, dropped = without_loop_rules(render(harness, "system.md.j2", context))
    confirm = ""
    if harness.has_template("confirm_done.md.j2"):
        confirm, more = without_loop_rules(render(harness, "confirm_done.md.j2", context))
        dropped += more
    return TEMPLATES.get_template("instructions.md.j2").render(harness=harness, system=system, confirm=confirm), dropped


def without_loop_rules(text: str) -> tuple[str, list[str]]:
    """`text` without the sentences, list items and code blocks that describe harness-evo's agent loop;
    and those left out."""
    kept, dropped = [], []
    for paragraph in paragraphs(text):
        if paragraph.startswith("```"):
            (dropped if LOOP_RULES.search(paragraph) else kept).append(paragraph)
            continue
        lines = paragraph.splitlines()
        if any(LIST_ITEM.match(line) for line in lines):
            pieces = [line for line in lines if not LOOP_RULES.search(line)]
            dropped += [line.strip() for line in lines if LOOP_RULES.search(line)]
            joined = "\n".join(pieces)
        else:
            sentences = SENTENCE_END.split(" ".join(line.strip() for line in lines))
            dropped += [sentence for sentence in sentences if LOOP_RULES.search(sentence)]
            joined = " ".join(sentence for sentence in sentences if not LOOP_RULES.search(sentence))
        if joined.strip():
            kept.append(joined)
    return "\n\n".join(kept).strip(), dropped


def paragraphs(text: str) -> list[str]:
    """Blank-line separated paragraphs of markdown; a fenced code block is one paragraph, blank lines and all."""
    found, current, fenced = [], [], False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            if not fenced and current:
                found.append("\n".join(current))
                current = []
            fenced = not fenced
            current.append(line)
            if not fenced:
                found.append("\n".join(current))
                current = []
        elif not line.strip() and not fenced:
            if current:
                found.append("\n".join(current))
            current = []
        else:
            current.append(line)
    if current:
        found.append("\n".join(current))
    return found


def subagent_fields(harness: Harness, name: str, skills: list[str]) -> dict:
    """Frontmatter of the subagent that works as the harness's agent does (Claude Code's `.claude/agents/<name>.md`)."""
    description, _ = without_loop_rules(harness.settings.harness.description)
    description = description or f"The {harness.name} agent harness, evolved by harness-evo."
    return {
        "name": name,
        "description": f"{description.rstrip('.:')}. Use it to carry out a task in a terminal.",
        "maxTurns": harness.agent.step_limit,
    } | ({"skills": skills} if skills else {})


def settings(harness: Harness) -> dict:
    """`.claude/settings.json`: the command timeout and output cap as the environment of Claude Code's Bash tool; with
    workspace discovery on, a SessionStart hook that runs the discovery commands (Claude Code adds what a SessionStart
    hook prints to the session's context)."""
    agent = harness.agent
    found = {
        "env": {
            "BASH_DEFAULT_TIMEOUT_MS": str(round(agent.command_timeout_s * 1000)),
            "BASH_MAX_OUTPUT_LENGTH": str(agent.max_observation_chars),
        }
    }
    if agent.discovery and agent.discovery_commands:
        found["hooks"] = {
            "SessionStart": [
                {
                    "matcher": "startup",
                    "hooks": [
                        {
                            "type": "command",
                            "command": discovery_hook(agent.discovery_commands),
                            "timeout": max(1, round(agent.command_timeout_s)),
                        }
                    ],
                }
            ]
        }
    return found


def discovery_hook(commands: list[str]) -> str:
    """A shell command that prints each discovery command and its output, as the first prompt of harness-evo shows them,
    and never fails (a failing SessionStart hook is shown to the user instead of its output)."""
    lines = [
        f'echo {shlex.quote("$ " + command)}; ( {command} ) 2>&1 || echo "(failed: exit code $?)"'
        for command in commands
    ]
    return "; ".join([*lines, "true"])


def project_root(source: Path) -> Path:
    """The Claude Code project `source` names (its root, or its `.claude` folder)."""
    root = source.parent if source.name == ".claude" else source
    if not root.is_dir():
        raise UserError(f"{source}: not a folder (a Claude Code project: CLAUDE.md and .claude/)")
    if not (root / "CLAUDE.md").is_file() and not (root / ".claude").is_dir():
        raise UserError(f"{source}: not a Claude Code project (no CLAUDE.md, no .claude/)")
    return root


def markdown_as_skill(path: Path, folder: Path, kind: str, read: SkillsRead) -> dict[str, str]:
    """A subagent or a command (markdown with optional frontmatter) as a skill of the same name: its body is what the
    agent reads when the description fits."""
    relative = path.relative_to(folder).with_suffix("").as_posix()
    try:
        text = path.read_text()
        front, body = split_frontmatter(text, str(path)) if text.startswith("---") else ({}, text)
        name = skill_name(str(front.get("name") or relative.replace("/", "-")))
        if any(existing.startswith(f"skills/{name}/") for existing in read.components):
            name = skill_name(f"{name}-{kind}")
    except (UnicodeDecodeError, UserError) as e:
        read.notes.append(f"refused {kind} {relative}: {e}")
        return {}
    first = next((line.strip("# ").strip() for line in body.splitlines() if line.strip()), "")
    description = str(front.get("description") or first or f"The {kind} {relative}.").strip()[:1024]
    extra = sorted(key for key in front if key not in ("name", "description"))
    read.notes.append(
        f"the {kind} {relative} is the skill `{name}`"
        + (f" (its {', '.join(extra)} not carried)" if extra else "")
        + ("; `$ARGUMENTS` in it stands for what the task asks" if "$ARGUMENTS" in body else "")
    )
    return {f"skills/{name}/SKILL.md": frontmatter({"name": name, "description": description}, body)}


def with_project_instructions(base: Harness, claude_md: Path, notes: list[str]) -> Harness:
    """The base harness, its system prompt followed by the project's CLAUDE.md."""
    try:
        text = claude_md.read_text().strip()
    except UnicodeDecodeError:
        raise UserError(f"{claude_md}: not a text file") from None
    if "{% endraw" in text:
        raise UserError(
            f"{claude_md}: holds `{{% endraw`, which a harness prompt cannot quote; remove it and import again"
        )
    if any(line.startswith("@") for line in text.splitlines()):
        notes.append(f"{claude_md}: its `@path` imports are kept as text; the files they name are not read")
    notes.append(f"{claude_md} is in prompts/system.md.j2, after the base harness's system prompt")
    system = base.components["prompts/system.md.j2"].rstrip("\n")
    system += f"\n\n## Project instructions (CLAUDE.md)\n\n{{% raw %}}{text}{{% endraw %}}\n"
    return Harness({**base.components, "prompts/system.md.j2": system}, source=base.source)
