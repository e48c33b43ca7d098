"""skills: a folder of Agent Skills (agentskills.io): `<name>/SKILL.md` per skill,
and per tool a skill with its scripts.

A tool becomes a skill whose folder holds the tool's files as they are (`tool.toml` included) and whose
generated SKILL.md says how to run it; its frontmatter `metadata` marks it, so that an import turns it back
into a tool. Prompts and agent settings have no place in this format.
"""

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness_evo.errors import UserError
from harness_evo.harness import assets as binary
from harness_evo.harness.features import not_carried
from harness_evo.harness.folder import Harness
from harness_evo.harness.formats.base import (
    CARRIED,
    TEMPLATES,
    Exported,
    Imported,
    carried,
    read_carried,
    read_files,
)
from harness_evo.harness.frontmatter import frontmatter, split_frontmatter
from harness_evo.harness.paths import safe_relative
from harness_evo.templating import environment

MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
FIELDS = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
TOOL_MARK = "harness-evo-tool"
"""Key of the frontmatter `metadata` that marks a skill made from a harness tool."""
INSTRUCTIONS_MARK = "harness-evo-instructions"
"""Key of the frontmatter `metadata` that marks the skill holding the harness's rendered system prompt."""
PROJECT_SKILLS = ".claude/skills"
"""Where a Claude Code project keeps its skills."""
EXAMPLES_MARK = "harness-evo-examples"
"""Key of the frontmatter `metadata` that marks the skill holding the harness's worked examples
(`examples/<name>.md`)."""


def valid_name(name: str) -> bool:
    """Lowercase letters (any script) and digits in words joined by single hyphens,
    as the reference validator reads names."""
    name = unicodedata.normalize("NFKC", name)
    return (
        name == name.lower()
        and all(c.isalnum() or c == "-" for c in name)
        and not name.startswith("-")
        and not name.endswith("-")
        and "--" not in name
    )


def frontmatter_problems(front: dict[str, Any], folder_name: str, lenient: bool = False) -> list[str]:
    """Every way a SKILL.md frontmatter breaks the Agent Skills rules; empty when it is valid. `lenient` is for skills
    brought in: it checks less than the reference validator (skills-ref) does, letting `allowed-tools` be a YAML list,
    `license` any value, `metadata` any mapping and `description` run over its limit (an export shortens it)."""
    problems = [
        f"unknown frontmatter field `{key}` (allowed: {', '.join(sorted(FIELDS))})"
        for key in front
        if key not in FIELDS
    ]
    name = front.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append("`name` is missing or not a string")
    else:
        name = unicodedata.normalize("NFKC", name.strip())
        if len(name) > MAX_NAME:
            problems.append(f"`name` has {len(name)} characters, at most {MAX_NAME} are allowed")
        if not valid_name(name):
            problems.append(
                f"`name` {name!r} must be lowercase letters, digits and single hyphens, not starting or ending with one"
            )
        if name != unicodedata.normalize("NFKC", folder_name):
            problems.append(f"`name` {name!r} must match its folder {folder_name!r}")
    description = front.get("description")
    if not isinstance(description, str) or not description.strip():
        problems.append("`description` is missing or empty")
    elif len(description) > MAX_DESCRIPTION and not lenient:
        problems.append(f"`description` has {len(description)} characters, at most {MAX_DESCRIPTION} are allowed")
    compatibility = front.get("compatibility")
    if compatibility is not None and (not isinstance(compatibility, str) or len(compatibility) > MAX_COMPATIBILITY):
        problems.append(f"`compatibility` must be a string of at most {MAX_COMPATIBILITY} characters")
    if lenient:
        return problems
    for key in ("license", "allowed-tools"):
        if key in front and not isinstance(front[key], str):
            problems.append(f"`{key}` must be a string")
    metadata = front.get("metadata")
    if metadata is not None and not (
        isinstance(metadata, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())
    ):
        problems.append("`metadata` must map strings to strings")
    return problems


def skill_file(folder: Path) -> Path | None:
    """A skill folder's SKILL.md, or its lowercase `skill.md`, which the reference validator also takes."""
    return next(
        (
            folder / name
            for name in ("SKILL.md", "skill.md")
            if (folder / name).is_file() or (folder / name).is_symlink()
        ),
        None,
    )


def skill_problems(folder: Path, lenient: bool = False) -> list[str]:
    """Every way a skill folder breaks the Agent Skills rules; empty when it is valid (see `frontmatter_problems`)."""
    skill_md = skill_file(folder) if lenient else folder / "SKILL.md"
    if skill_md is None or skill_md.is_symlink() or not skill_md.is_file():
        return [f"{skill_md or folder / 'SKILL.md'}: missing (or a link)"]
    try:
        front, _ = split_frontmatter(skill_md.read_text(), str(skill_md))
    except UserError as e:
        return [str(e)]
    return [f"{skill_md}: {problem}" for problem in frontmatter_problems(front, folder.name, lenient)]


def skill_name(name: str) -> str:
    """`name` made valid for the Agent Skills rules; a name that tries to leave its folder is refused."""
    safe_relative(name)
    if "/" in name:
        raise UserError(f"refusing skill or tool name {name!r}: a name is one folder, without '/'")
    valid = "-".join(re.findall(r"[a-z0-9]+", name.lower()))[:MAX_NAME].strip("-")
    if not valid:
        raise UserError(f"skill or tool name {name!r} has no letters or digits to make an Agent Skills name from")
    return valid


def shortened(description: str) -> str:
    """`description` cut to the Agent Skills limit at a word's end, with an ellipsis when it was cut."""
    if len(description) <= MAX_DESCRIPTION:
        return description
    return description[: MAX_DESCRIPTION - 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"


def skill_folders(harness: Harness) -> dict[str, dict[str, str]]:
    """Folder name -> {relative path -> text} of each skill of the harness."""
    folders: dict[str, dict[str, str]] = {}
    for path, text in harness.components.items():
        parts = path.split("/", 2)
        if parts[0] == "skills" and len(parts) == 3:
            folders.setdefault(parts[1], {})[parts[2]] = text
    return {folder: files for folder, files in folders.items() if "SKILL.md" in files}


def folder_assets(harness: Harness, folder: str) -> dict[str, bytes]:
    """Relative path -> bytes of the binary files in the harness's folder `folder` (`skills/NAME` or `tools/NAME`)."""
    return {
        path.removeprefix(f"{folder}/"): data for path, data in harness.assets.items() if path.startswith(f"{folder}/")
    }


def as_skills(harness: Harness, tool_dir: str = "$TOOL_DIR") -> Exported:
    """Skill folder files (relative to the skills folder) for every skill and tool; `tool_dir` is how a tool's
    instructions name the folder that holds its files."""
    files: dict[str, str] = {}
    assets: dict[str, bytes] = {}
    lost: list[str] = []
    for folder, skill_files in skill_folders(harness).items():
        name = skill_name(folder)
        front, body = split_frontmatter(skill_files["SKILL.md"], f"skills/{folder}/SKILL.md")
        problems = frontmatter_problems(front, name) if name == folder else [f"`{folder}` is not a valid name"]
        if problems:
            description = str(front.get("description", "")).strip()
            fields = {"name": name, "description": shortened(description)}
            fields |= {key: front[key] for key in FIELDS - {"name", "description"} if key in front}
            skill_files = {**skill_files, "SKILL.md": frontmatter(fields, body)}
            lost.append(
                f"skill `{folder}` was rewritten to meet the Agent Skills rules ({'; '.join(problems)}): its name is "
                f"`{name}`, its description at most {MAX_DESCRIPTION} characters, and frontmatter fields the rules do "
                "not name were dropped"
            )
        files |= {f"{name}/{relative}": text for relative, text in skill_files.items()}
        assets |= {f"{name}/{relative}": data for relative, data in folder_assets(harness, f"skills/{folder}").items()}
    for tool in harness.tools:
        name = skill_name(tool.name)
        if any(path.startswith(f"{name}/") for path in files):
            name = skill_name(f"{name}-tool")
        if name != tool.name:
            lost.append(f"tool `{tool.name}` became the skill `{name}`; an import brings it back under that name")
        body = TEMPLATES.get_template("tool_skill.md.j2").render(
            tool=tool, command=tool.command.replace("$TOOL_DIR", tool_dir)
        )
        description = shortened(tool.description)
        files[f"{name}/SKILL.md"] = frontmatter(
            {"name": name, "description": description, "metadata": {TOOL_MARK: "true"}}, body
        )
        files |= {f"{name}/{relative}": text for relative, text in harness.tool_files(tool).items()}
        assets |= {
            f"{name}/{relative}": data for relative, data in folder_assets(harness, f"tools/{tool.name}").items()
        }
    if harness.examples:
        name = skill_name(f"{harness.name}-examples")
        if any(path.startswith(f"{name}/") for path in files):
            name = skill_name(f"{harness.name}-worked-examples")
        files |= examples_skill(harness, name)
        lost.append(
            f"examples: the skill `{name}` holds all {len(harness.examples)}, for the agent to read when one resembles "
            f"its task; harness-evo shows each task the {harness.agent.examples} most similar to its instruction in "
            "the instance prompt"
        )
    return Exported(files=files, lost=lost, assets=assets)


def examples_skill(harness: Harness, name: str) -> dict[str, str]:
    """The files of a skill `name` of the harness's worked examples: a SKILL.md listing them,
    and the example files as they are."""
    description = (
        f"Worked examples: {len(harness.examples)} terminal tasks solved step by step with the {harness.name} harness, "
        "each with its commands and their outputs. Read the one closest to your task before you start it."
    )
    body = TEMPLATES.get_template("examples_skill.md.j2").render(examples=harness.examples)
    files = {
        f"{name}/SKILL.md": frontmatter(
            {"name": name, "description": description, "metadata": {EXAMPLES_MARK: "true"}}, body
        )
    }
    return files | {f"{name}/{example.path}": harness.components[example.path] for example in harness.examples}


def instructions(harness: Harness, skills_root: str) -> str:
    """The harness's system prompt (and its check before finishing) rendered once, for an agent that has its own loop;
    skills and tools are named by their folders under `skills_root`."""
    context = {
        "agent": harness.agent,
        "tools": [tool.model_dump() | {"folder": f"{skills_root}{skill_name(tool.name)}"} for tool in harness.tools],
        "skills": [
            skill.model_dump() | {"path": f"{skills_root}{skill_name(skill.name)}/SKILL.md"} for skill in harness.skills
        ],
        "instruction": "(the task you are given)",
        "step": 1,
        "steps_left": harness.agent.step_limit,
    }
    return TEMPLATES.get_template("instructions.md.j2").render(
        harness=harness,
        system=render(harness, "system.md.j2", context),
        confirm=render(harness, "confirm_done.md.j2", context) if harness.has_template("confirm_done.md.j2") else "",
    )


def render(harness: Harness, template: str, context: dict) -> str:
    """A prompt rendered outside the agent loop: variables only the loop knows render as nothing."""
    prompt = environment(strict=False, trim_blocks=False).from_string(harness.components[f"prompts/{template}"])
    return prompt.render(context).strip()


def lost_prompts(harness: Harness, why: str) -> list[str]:
    """What an export that renders the system prompt once cannot carry: the other prompts and the agent settings."""
    dropped = [
        path
        for path in harness.components
        if path.startswith("prompts/") and Path(path).name not in ("system.md.j2", "confirm_done.md.j2")
    ]
    return [
        "the system prompt is rendered once; where it describes harness-evo's reply format (one fenced bash block per "
        f"reply, TASK_DONE to finish) it does not apply to {why}",
        f"{', '.join(dropped)}: {why} writes the task, observation and format-error messages itself",
        f"the agent settings of harness.toml (step limit {harness.agent.step_limit}, command timeout "
        f"{harness.agent.command_timeout_s:g} s, output cap {harness.agent.max_observation_chars} characters, action "
        f"format {harness.agent.action_format})",
    ]


class AgentSkills:
    name = "skills"

    def export(self, harness: Harness) -> Exported:
        exported = as_skills(harness)
        name = skill_name(f"{harness.name}-instructions")
        description = (
            f"How to carry out a task in a terminal, step by step: the working method of the {harness.name} agent "
            "harness, evolved by harness-evo from the agent's failures. Use it for any task done with shell commands."
        )
        exported.files[f"{name}/SKILL.md"] = frontmatter(
            {"name": name, "description": description, "metadata": {INSTRUCTIONS_MARK: "true"}},
            instructions(harness, skills_root="../"),
        )
        exported.files |= {f"{name}/{path}": text for path, text in carried(harness).items()}
        exported.lost += lost_prompts(harness, "the agent using these skills") + not_carried(
            harness, "the agent using these skills"
        )
        exported.usage = [
            "copy the skill folders where your agent looks for skills (e.g. `.claude/skills/` or `~/.claude/skills/`)",
            "`harness-evo import skills DIR --out HARNESS` turns them back into this harness: its prompts and "
            f"settings are in `{name}/{CARRIED}/`",
        ]
        return exported

    def load(self, source: Path, base: Harness | None) -> Imported:
        read = read_skills(Path(source))
        if not read.components and read.carried is None:
            why = "; ".join(read.refused) if read.refused else "only exported instructions"
            raise UserError(f"{source}: no skill or tool to import ({why})")
        components, assets = over_carried_or_base(read, base, source)
        return Imported(harness=Harness(components, source=str(source), assets=assets), notes=read.notes)


@dataclass
class SkillsRead:
    """What a folder of skills brings: harness components, what an export carried, and notes (refusals among them)."""

    components: dict[str, str] = field(default_factory=dict)
    assets: dict[str, bytes] = field(default_factory=dict)
    """The binary files of the skills, by their path in the harness."""
    carried: dict[str, str] | None = None
    """The components an export of a harness carried beside its skills (harness.toml, prompts), if it did."""
    notes: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    """Skills left out, each with its reason."""


def skills_folder(source: Path) -> Path:
    """The folder of skills `source` names: itself, or the `.claude/skills` of a Claude Code project."""
    if not source.is_dir():
        raise UserError(f"{source}: not a folder of skills")
    project = source / PROJECT_SKILLS
    return project if not skill_file(source) and project.is_dir() else source


def read_skills(source: Path) -> SkillsRead:
    """Every skill folder of `source` (a folder of skills, one skill's folder, or a project with `.claude/skills`), each
    read alone: a bad one is refused with its reason and the others come in."""
    read = SkillsRead()
    folder = skills_folder(source)
    if folder != source:
        read.notes.append(f"skills from {folder}")
        read.carried = read_carried(folder.parent)
    folders = (
        [folder]
        if skill_file(folder)
        else sorted(p for p in folder.iterdir() if p.is_dir() and skill_file(p) or p.is_symlink())
    )
    if not folders:
        raise UserError(f"{source}: no `<name>/SKILL.md` inside; a folder of Agent Skills holds one folder per skill")
    for skill in folders:
        try:
            components, assets = one_skill(skill, read)
            if over := binary.problems(read.assets | assets):
                raise UserError(f"its binary files would take the harness over its cap ({over[0]})")
            read.components |= components
            read.assets |= assets
        except UserError as e:  # one bad skill is named and left out; the others come in
            read.refused.append(f"{skill.name}: {e}")
            read.notes.append(f"refused {skill.name}: {e}")
    return read


def one_skill(folder: Path, read: SkillsRead) -> tuple[dict[str, str], dict[str, bytes]]:
    """The harness files of one skill folder, text and binary (none for exported instructions, which may carry the
    harness's prompts); a UserError says why it is refused."""
    if folder.is_symlink():
        raise UserError("a link; copy the skill in place of the link")
    problems = skill_problems(folder, lenient=True)
    if problems:
        raise UserError(f"not a valid Agent Skill: {'; '.join(problems)}")
    files, binaries = read_files(folder)
    if "SKILL.md" not in files:
        files["SKILL.md"] = files.pop("skill.md")
        read.notes.append(f"{folder.name}: skill.md is SKILL.md in the harness")
    front, _ = split_frontmatter(files["SKILL.md"], str(folder / "SKILL.md"))
    marks = front.get("metadata") if isinstance(front.get("metadata"), dict) else {}
    if marks.get(INSTRUCTIONS_MARK) == "true":
        read.carried = read_carried(folder)
        if read.carried is None:
            read.notes.append(
                f"{folder.name} holds instructions exported from a harness, without the prompts themselves"
            )
        return {}, {}
    if marks.get(EXAMPLES_MARK) == "true":
        read.notes.append(f"{folder.name}: its worked examples are the harness's examples/")
        return {path: text for path, text in files.items() if path.startswith("examples/")}, {}
    read.notes += [
        f"{folder.name}: frontmatter `{key}` is kept in SKILL.md but harness-evo does not act on it"
        for key in ("allowed-tools", "compatibility")
        if key in front
    ]
    if len(description := str(front["description"]).strip()) > MAX_DESCRIPTION:
        read.notes.append(
            f"{folder.name}: its description has {len(description)} characters, over the Agent Skills limit of "
            f"{MAX_DESCRIPTION}; kept whole here, an export shortens it"
        )
    if marks.get(TOOL_MARK) == "true":
        if "tool.toml" not in files:
            raise UserError("marked as a harness-evo tool but has no tool.toml")
        prefix, files = f"tools/{folder.name}", {path: text for path, text in files.items() if path != "SKILL.md"}
    else:
        prefix = f"skills/{folder.name}"
    assets = {f"{prefix}/{path}": data for path, data in binaries.items()}
    if too_big := binary.problems(assets):
        raise UserError(too_big[0])
    if assets:
        read.notes.append(
            f"{folder.name}: {len(assets)} binary file{'s' * (len(assets) > 1)} "
            f"({binary.describe_size(sum(map(len, assets.values())))}) carried unchanged: copied into the sandbox "
            "with the skill, never shown to a model"
        )
    return {f"{prefix}/{path}": text for path, text in files.items()}, assets


def over_carried_or_base(
    read: SkillsRead, base: Harness | None, source: Path
) -> tuple[dict[str, str], dict[str, bytes]]:
    """The components and assets of the imported harness: what was read, over what the export carried (prompts,
    settings) or, for skills that carry none, over the base harness (whose skills and tools of the same names are
    replaced)."""
    if read.carried is not None:
        read.notes.append(f"prompts and agent settings come from the export itself (its {CARRIED}/ folder)")
        return read.carried | read.components, read.assets
    if base is None:
        raise UserError(f"{source}: skills carry no prompts or agent settings; pass --base HARNESS to take them from")
    replaced = {"/".join(path.split("/")[:2]) for path in read.components}
    replaced |= {"examples"} if any(path.startswith("examples/") for path in read.components) else set()

    def kept(files: dict) -> dict:
        return {
            path: content
            for path, content in files.items()
            if "/".join(path.split("/")[:2]) not in replaced and path.split("/")[0] not in replaced
        }

    read.notes.append(f"prompts and agent settings come from the base harness {base.source}")
    return kept(base.components) | read.components, kept(base.assets) | read.assets
