"""mini-swe-agent: one YAML config (`agent.system_template`, `agent.instance_template`, `model.observation_template`,
`model.format_error_template`, step limit, command timeout) whose templates are ours, with a header that defines
harness-evo's variables from mini-swe-agent's.

Both tools render templates with Jinja2, but with different variables: we give `instruction`, `output` (a string),
`exit_code`, `agent`, `tools`, `skills`...; mini-swe-agent gives `task`, `output` (a dict), `step_limit`... An export
keeps each template as it is and puts in front of it a header of `{% set %}` lines between two marker comments, so
that an import can take the header off again and get the template back unchanged. Skills are folded into the
system template (their text is in the header, and a loop at its end shows them); examples ride in the instance
template's header, all of them cut to the first K, as mini-swe-agent cannot choose them per task. A config written by
hand gets the opposite header on import: mini-swe-agent's variables defined from ours, and a refusal for the variables
we cannot give.
"""

import json
import platform
import re
import tomllib
from pathlib import Path
from typing import Any

import jinja2
import jinja2.meta
import jinja2.nodes
import yaml
from pydantic import ValidationError

from harness_evo.config import one_line
from harness_evo.errors import UserError
from harness_evo.harness.features import SETTINGS as FEATURE_SETTINGS
from harness_evo.harness.features import not_carried
from harness_evo.harness.folder import (
    OPTIONAL_VARIABLES,
    SANDBOX_ROOT,
    SKILL_DIR,
    AgentSettings,
    Harness,
    SamplingSettings,
    installed_skill_text,
)
from harness_evo.harness.formats.agent_skills import folder_assets, skill_folders
from harness_evo.harness.formats.base import Exported, Imported, read_files
from harness_evo.harness.settings_edit import with_settings
from harness_evo.templating import environment

DONE = "TASK_DONE"
"""Our finish marker: the last line of the output of the agent's final command."""
MINI_DONE = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
"""mini-swe-agent's: the first line of the output of the final command."""
MINI_FENCE = "mswea_bash_command"
"""Language of the fenced block mini-swe-agent's text-based models parse by default."""
ACTION_REGEX = r"```bash\s*\n(.*?)\n```"

PLACES = {
    "prompts/system.md.j2": ("agent", "system_template"),
    "prompts/instance.md.j2": ("agent", "instance_template"),
    "prompts/observation.md.j2": ("model", "observation_template"),
    "prompts/format_error.md.j2": ("model", "format_error_template"),
}
"""Our template -> (section, key) of the mini-swe-agent config."""

HEADER_START = (
    "{#- harness-evo: the template below is harness-evo's; these lines define its variables from mini-swe-agent's -#}\n"
)
HEADER_END = "{#- harness-evo: end of variables -#}\n"
SKILLS_START = "{#- harness-evo: skills folded in -#}"
SKILLS_LOOP = SKILLS_START + "{% for skill in skills %}\n\n## Skill: {{ skill.name }}\n\n{{ skill.body }}{% endfor %}\n"
IMPORT_START = "{#- imported from mini-swe-agent: these lines define its variables from harness-evo's -#}\n"


class MiniSweAgent:
    name = "mini-swe-agent"

    def export(self, harness: Harness) -> Exported:
        lost: list[str] = []
        config: dict[str, Any] = {"agent": {}, "model": {}}
        for component, (section, key) in PLACES.items():
            source = harness.components[component]
            header = export_header(key, template_variables(source, component)[0], harness, lost)
            folded = SKILLS_LOOP if key == "system_template" and harness.skills else ""
            config[section][key] = header + to_mini(source) + folded
        config["agent"]["step_limit"] = harness.agent.step_limit
        if harness.agent.action_format == "bash-block":
            config["model"] |= {"model_class": "litellm_textbased", "action_regex": ACTION_REGEX}
        else:
            config["model"]["model_class"] = "litellm"
        if sampling := harness.sampling.model_dump(exclude_defaults=True):
            config["model"]["model_kwargs"] = sampling
        if harness.confirms_done and not harness.has_template("confirm_done.md.j2"):
            lost.append("confirm_done: mini-swe-agent does not ask the agent to confirm that it is done")
        config["environment"] = {"timeout": max(1, round(harness.agent.command_timeout_s))}
        config["harness_evo"] = {
            "name": harness.name,
            "description": harness.settings.harness.description,
            "max_observation_chars": harness.agent.max_observation_chars,
            "examples": harness.agent.examples,
        }
        if harness.agent.confirm_done is not None:
            config["harness_evo"]["confirm_done"] = harness.agent.confirm_done
        written = tomllib.loads(harness.components["harness.toml"]).get(
            "agent", {}
        )  # in the order harness.toml has them
        config["harness_evo"] |= {name: value for name, value in written.items() if name in FEATURE_SETTINGS}
        lost += not_carried(harness, "mini-swe-agent")
        files = {"config.yaml": dump_yaml(config)}
        lost.append(
            f"the finish marker: mini-swe-agent finishes when {MINI_DONE} is the first line of a command's output, "
            f'harness-evo when {DONE} is the last; the templates now say {MINI_DONE}, and "first line" for "last line" '
            "in the sentences that name it: check that their wording still fits"
        )
        if harness.skills:
            lost.append(
                "skills are folded into the system template (a section `Skill: NAME` each, at its end); "
                "there are no skill files to `cat`"
            )
        for folder, skill_files in skill_folders(harness).items():
            others = {path: text for path, text in skill_files.items() if path != "SKILL.md"}
            files |= {
                f"skills/{folder}/{path}": installed_skill_text(text, skill_home(folder))
                for path, text in others.items()
            }
            if others := sorted([*others, *folder_assets(harness, f"skills/{folder}")]):
                lost.append(
                    f"skill `{folder}`: its section names its folder as {skill_home(folder)} (`{SKILL_DIR}` in "
                    f"harness-evo); its files ({', '.join(others)}) are in skills/{folder}/: copy them there in your "
                    "environment"
                )
            elif SKILL_DIR in skill_files["SKILL.md"]:
                lost.append(
                    f"skill `{folder}`: its section names its folder as {skill_home(folder)} (`{SKILL_DIR}` in "
                    "harness-evo), which holds no file besides SKILL.md"
                )
        for tool in harness.tools:
            files |= {f"tools/{tool.name}/{path}": text for path, text in harness.tool_files(tool).items()}
            lost.append(
                f"tool `{tool.name}`: mini-swe-agent has no tools besides bash; its files are in tools/{tool.name}/ "
                "and the templates see no tools (install them in your environment and mention them in the prompt to "
                "use them)"
            )
        if harness.examples:
            lost.append(
                "examples: mini-swe-agent cannot choose them per task, so the instance template holds all "
                f"{len(harness.examples)} and shows the first {harness.agent.examples} by name (harness-evo shows the "
                f"{harness.agent.examples} most similar to each task's instruction)"
            )
        lost += [
            f"{path}: mini-swe-agent has no such step"
            for path in harness.components
            if path.startswith("prompts/") and path not in PLACES
        ]
        lost.append(
            f"the output cap of {harness.agent.max_observation_chars} characters is applied by the observation "
            "template's header, as mini-swe-agent itself does not cut output"
        )
        return Exported(
            files=files,
            lost=lost,
            assets=dict(harness.assets),
            usage=[
                "`mini -c config.yaml -m MODEL -t TASK` runs it (`-c config.yaml` replaces mini-swe-agent's default "
                "config); it needs mini-swe-agent 2 (pip install 'mini-swe-agent>=2'): 1.x has no model class "
                '`litellm_textbased` ("Unknown model class")',
                "`harness-evo import mini-swe-agent config.yaml --out DIR` brings it back (tools excepted)",
            ],
        )

    def load(self, source: Path, base: Harness | None) -> Imported:
        config = read_config(source)
        if base is None:
            raise UserError(
                f"{source}: a mini-swe-agent config has no place for some of a harness's settings; pass --base HARNESS"
            )
        notes: list[str] = []
        templates: dict[str, str] = {}
        skills: list[dict[str, str]] = []
        examples: list[dict[str, str]] = []
        fence = action_fence(config["model"].get("action_regex"))
        if fence.startswith("<"):
            notes.append(
                f"model.action_regex: the command in {fence} tags is a fenced bash block in harness-evo; the "
                "templates' tags and examples were rewritten to fenced blocks, check that their wording still fits"
            )
        for component, (section, key) in PLACES.items():
            text = config[section].pop(key, None)
            if text is None:
                if key in ("system_template", "instance_template"):
                    raise UserError(f"{source}: `{section}.{key}` is missing; mini-swe-agent needs it too")
                templates[component] = base.components[component]
                notes.append(
                    f"`{section}.{key}` is not in the config: {component} comes from the base harness {base.source}"
                )
                continue
            if not isinstance(text, str):
                raise UserError(f"{source}: `{section}.{key}` must be a string")
            if text.startswith(HEADER_START) and HEADER_END in text:
                header, body = text.split(HEADER_END, 1)
                if key == "system_template":
                    skills = folded_skills(header)
                    body = body.split(SKILLS_START, 1)[0]
                if key == "instance_template":
                    examples = folded_examples(header)
                templates[component] = from_mini(body)
            else:
                templates[component] = import_header(f"{section}.{key}", text, notes) + translate(text, fence)
        extra = config.pop("harness_evo", None) or {}
        try:
            settings = agent_settings(config, extra, base, notes)
        except ValidationError as e:
            raise UserError(f"{source}: a setting harness-evo cannot take: {one_line(e)}") from None
        sampling = sampling_settings(config, notes)
        notes += [
            f"`{section}.{key}` is not carried: it belongs to a run or to mini-swe-agent itself"
            for section in ("agent", "model", "environment")
            for key in config[section]
        ]
        notes += [f"`{key}` is not carried" for key in config if key not in ("agent", "model", "environment")]
        info = {
            "name": str(extra.get("name") or Path(source).stem),
            "description": str(
                extra.get("description") or f"Imported from the mini-swe-agent config {Path(source).name}."
            ),
        }
        agent = settings.model_dump(
            exclude_none=True, exclude={name for name in FEATURE_SETTINGS if name not in settings.model_fields_set}
        )
        agent = dict(
            sorted(agent.items(), key=lambda item: list(extra).index(item[0]) if item[0] in extra else -1)
        )  # as exported
        toml = with_settings(base.components["harness.toml"], {"harness": info, "agent": agent, "model": sampling})
        components = {"harness.toml": toml, **templates}
        components |= {f"skills/{skill['folder']}/SKILL.md": skill["text"] for skill in skills}
        skill_texts, skill_assets = exported_skill_files(
            Path(source).parent, [skill["folder"] for skill in skills], notes
        )
        components |= skill_texts
        components |= {f"examples/{example['name']}.md": example["file"] for example in examples}
        tool_texts, tool_assets = exported_tools(Path(source).parent, notes)
        components |= tool_texts
        return Imported(harness=Harness(components, source=str(source), assets=skill_assets | tool_assets), notes=notes)


# export: our variables from mini-swe-agent's


def export_header(key: str, used: set[str], harness: Harness, lost: list[str]) -> str:
    """`{% set %}` lines that give a template of ours, placed at `key` of the config, every variable it uses."""
    agent = harness.agent
    cut, half = agent.max_observation_chars, agent.max_observation_chars // 2
    settings = {name: jinja_literal(value) for name, value in agent.model_dump().items() if value is not None}
    if key != "format_error_template":
        settings |= {
            "step_limit": "step_limit",
            "command_timeout_s": f"timeout | default({settings['command_timeout_s']})",
        }
    definitions = {
        "agent": "{" + ", ".join(f'"{name}": {value}' for name, value in settings.items()) + "}",
        "tools": "[]",
        "skills": jinja_literal(folded_skill_list(harness)),
        "instruction": "task",
        "step": "n_model_calls",
        "steps_left": "agent.step_limit - n_model_calls",
        "exit_code": "output.returncode",
        "timed_out": '"timed out" in (output.exception_info | default(""))',
        "output": f'output.output if output.output | length <= {cut} else output.output[:{half}] ~ "\\n[... " ~ '
        f'(output.output | length - {cut}) ~ " characters cut ...]\\n" ~ output.output[-{half}:]',
        "error": "error",
        "examples": f"{jinja_literal(folded_example_list(harness))}[:{agent.examples}]",
        **{name: jinja_literal(empty) for name, empty in OPTIONAL_VARIABLES.items() if name != "examples"},
    }
    given = {
        "system_template": {"agent", "tools", "skills", "instruction", "step", "steps_left"},
        "instance_template": {"agent", "tools", "skills", "instruction", "step", "steps_left", "examples", "discovery"},
        "observation_template": set(definitions) - {"error"},
        "format_error_template": {"agent", "tools", "skills", "error"},
    }[key]
    needed = (
        used
        | ({"agent"} if "steps_left" in used else set())
        | ({"examples"} if key == "instance_template" and harness.examples else set())
    )
    lines = []
    for name, expression in definitions.items():
        if name not in needed or (expression == name and name in given):
            continue
        if name not in given:
            lost.append(f"{key} uses `{name}`, which mini-swe-agent does not give that template: it is empty there")
            expression = '""'
        lines.append(f"{{%- set {name} = {expression} -%}}\n")
    return HEADER_START + "".join(lines) + HEADER_END


def folded_skill_list(harness: Harness) -> list[dict[str, str]]:
    """The skills as the exported system template sees them; `folder` and `text` let an import restore the files."""
    skills = []
    for skill, (folder, files) in zip(harness.skills, skill_folders(harness).items(), strict=True):
        skills.append(
            {
                "name": skill.name,
                "description": skill.description,
                "body": to_mini(installed_skill_text(skill.body, skill_home(folder))),
                "path": f'the section "Skill: {skill.name}" at the end of these instructions',
                "folder": folder,
                "text": files["SKILL.md"],
            }
        )
    return skills


def folded_example_list(harness: Harness) -> list[dict[str, Any]]:
    """The examples as the exported instance template sees them, in mini-swe-agent's terms;
    `file` lets an import restore them."""
    return [
        example.model_dump()
        | {
            "text": to_mini(example.text),
            "file": harness.components[example.path],
            "turns": [
                {"reply": to_mini(turn.reply), "observation": to_mini(turn.observation or "")} for turn in example.turns
            ],
        }
        for example in harness.examples
    ]


def folded_skills(header: str) -> list[dict[str, str]]:
    """The skills an exported system template carries in its header."""
    return [skill for skill in header_list(header, "skills") if {"folder", "text"} <= set(skill)]


def folded_examples(header: str) -> list[dict[str, str]]:
    """The examples an exported instance template carries in its header (all of them, before the cut to the first K)."""
    return [example for example in header_list(header, "examples") if {"name", "file"} <= set(example)]


def header_list(header: str, name: str) -> list[dict]:
    """The list of dicts a header assigns to `name` (a slice of it taken off), or none."""
    for node in environment(trim_blocks=False).parse(header).find_all(jinja2.nodes.Assign):
        if isinstance(node.target, jinja2.nodes.Name) and node.target.name == name:
            value = node.node.node if isinstance(node.node, jinja2.nodes.Getitem) else node.node
            try:
                return [item for item in value.as_const() if isinstance(item, dict)]
            except (jinja2.nodes.Impossible, TypeError):
                return []
    return []


def jinja_literal(value: Any) -> str:
    """A Jinja2 expression that evaluates to `value` (JSON strings are valid Jinja2 string literals)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(jinja_literal(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{jinja_literal(str(k))}: {jinja_literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no Jinja2 literal for {type(value).__name__}")


# import: mini-swe-agent's variables from ours


def import_header(where: str, text: str, notes: list[str]) -> str:
    """`{% set %}` lines that give a mini-swe-agent template every variable it uses, or a refusal naming the others."""
    uname = platform.uname()
    given = {
        "task": "instruction",
        "step_limit": "agent.step_limit",
        "n_model_calls": "step",
        "timeout": "agent.command_timeout_s",
        "system": jinja_literal(uname.system),
        "release": jinja_literal(uname.release),
        "version": jinja_literal(uname.version),
        "machine": jinja_literal(uname.machine),
    }
    if where == "model.observation_template":
        given["output"] = (
            '{"output": output, "returncode": exit_code, "exception_info": "the command timed out" if timed_out else '
            '""}'
        )
        given |= {"elapsed_seconds": "elapsed_s | int", "wall_time_limit_seconds": "time_limit_s | int"}
    if where == "model.format_error_template":  # a reply with no runnable block: no actions, and no tool calls here
        given = {"error": "error", "actions": "[]", "has_tool_calls": "false"}
    used, optional = template_variables(text, where)
    missing = sorted(used - optional - set(given))
    if missing:
        raise UserError(
            f"{where} uses {', '.join(f'`{name}`' for name in missing)}, which harness-evo does not give that template "
            f"(it gives {', '.join(f'`{name}`' for name in sorted(given))}); edit the config to do without, then "
            "import again"
        )
    if used & {"system", "release", "version", "machine"}:
        notes.append(
            f"{where}: the machine's name, release, version and architecture are fixed to this machine's "
            f"({uname.system} {uname.machine})"
        )
    lines = [f"{{%- set {name} = {given[name]} -%}}\n" for name in given if name in used and given[name] != name]
    return IMPORT_START + "".join(lines) + HEADER_END if lines else ""


def template_variables(text: str, where: str) -> tuple[set[str], set[str]]:
    """(variables a template reads from its context, those it reads only after testing `is defined`)."""
    try:
        tree = environment(trim_blocks=False).parse(text)
    except jinja2.TemplateSyntaxError as e:
        raise UserError(f"{where} is not a valid Jinja2 template: {e}") from None
    optional = {
        test.node.name
        for test in tree.find_all(jinja2.nodes.Test)
        if test.name in ("defined", "undefined") and isinstance(test.node, jinja2.nodes.Name)
    }
    assigned = {name.name for name in tree.find_all(jinja2.nodes.Name) if name.ctx in ("store", "param")}
    return jinja2.meta.find_undeclared_variables(tree) - assigned, optional


def translate(text: str, fence: str) -> str:
    """mini-swe-agent's finish marker and block language in our terms (a command in XML tags becomes a fenced block)."""
    if fence.startswith("<"):
        tag = fence.strip("<>")
        text = re.sub(rf"<{tag}>(.*?)</{tag}>", lambda m: f"\n```bash\n{m[1].strip()}\n```\n", text, flags=re.DOTALL)
        text = text.replace(f"{tag} tag", "fenced bash block").replace(tag, "bash block")
    elif fence != "bash":
        text = text.replace(f"```{fence}", "```bash")
    return from_mini(text)


def to_mini(text: str) -> str:
    """Our finish marker in mini-swe-agent's terms: its name,
    and "first line" for "last line" where a sentence names it."""
    return _near(text.replace(DONE, MINI_DONE), MINI_DONE, "last line", "first line")


def from_mini(text: str) -> str:
    """mini-swe-agent's finish marker in our terms (the inverse of `to_mini`)."""
    return _near(text.replace(MINI_DONE, DONE), DONE, "first line", "last line")


def _near(text: str, marker: str, old: str, new: str) -> str:
    """`old` -> `new` in each sentence (up to a period or a line's end) that names `marker`."""
    return re.sub(rf"[^.\n]*{marker}[^.\n]*", lambda sentence: sentence[0].replace(old, new), text)


def action_fence(regex: Any) -> str:
    """The language of the fenced block a text-based mini-swe-agent model parses (`<TAG>` for an XML tag around the
    command, which the import turns into fenced blocks); refuses what is neither."""
    if regex is None:
        return MINI_FENCE
    if tag := re.fullmatch(r"<(\w+)>\(\.\*\?\)</\1>", str(regex)):
        return f"<{tag[1]}>"
    match = re.fullmatch(r"```(\w*)\\s\*\\n\(\.\*\?\)\\n```", str(regex))
    if not match:
        raise UserError(
            f"model.action_regex {regex!r} is not a fenced code block; harness-evo reads one ```bash block per reply "
            "(or native tool calls): edit the config to use a fenced block, then import again"
        )
    return match.group(1) or "bash"


def agent_settings(
    config: dict[str, dict[str, Any]], extra: dict[str, Any], base: Harness, notes: list[str]
) -> AgentSettings:
    """Our agent settings from the config's; what is taken is removed from `config`,
    so that the rest can be reported."""
    step_limit = config["agent"].pop("step_limit", base.agent.step_limit)
    if not isinstance(step_limit, int) or step_limit < 1:
        notes.append(
            f"agent.step_limit {step_limit!r} (no limit) is not possible in harness-evo: set to {base.agent.step_limit}"
        )
        step_limit = base.agent.step_limit
    model_class = str(config["model"].pop("model_class", ""))
    config["model"].pop("action_regex", None)
    if model_class and "textbased" not in model_class:
        notes.append(
            f"model.model_class {model_class} makes native tool calls; the harness reads one fenced bash block per "
            "reply, as harness-evo's agent loop does (check that the prompts ask for one)"
        )
    features = {
        name: extra.get(name, getattr(base.agent, name))
        for name in FEATURE_SETTINGS
        if name in extra or name in base.agent.model_fields_set
    }
    return AgentSettings(
        step_limit=step_limit,
        command_timeout_s=config["environment"].pop("timeout", base.agent.command_timeout_s),
        max_observation_chars=extra.get("max_observation_chars", base.agent.max_observation_chars),
        examples=extra.get("examples", base.agent.examples),
        confirm_done=extra.get("confirm_done", base.agent.confirm_done),
        **features,
    )


def sampling_settings(config: dict[str, dict[str, Any]], notes: list[str]) -> dict[str, Any]:
    """Our `[model]` settings from the config's `model.model_kwargs` (taken out of it);
    other keyword arguments are noted."""
    kwargs = config["model"].pop("model_kwargs", None) or {}
    taken = {key: kwargs.pop(key) for key in SamplingSettings.model_fields if key in kwargs}
    notes += [f"`model.model_kwargs.{key}` is not carried: the run's model configuration sets it" for key in kwargs]
    try:
        return SamplingSettings(**taken).model_dump(exclude_defaults=True)
    except ValidationError as e:
        raise UserError(f"model.model_kwargs: {one_line(e)}") from None


def exported_tools(folder: Path, notes: list[str]) -> tuple[dict[str, str], dict[str, bytes]]:
    """The tools an export wrote beside its config (`tools/<name>/`, with its `tool.toml`),
    as components and assets again."""
    found: tuple[dict[str, str], dict[str, bytes]] = ({}, {})
    for tool_toml in sorted((folder / "tools").glob("*/tool.toml")):
        texts, binaries = files_beside(folder, tool_toml.parent)
        found[0].update(texts)
        found[1].update(binaries)
        notes.append(f"tool `{tool_toml.parent.name}` comes from {tool_toml.parent} beside the config")
    return found


def skill_home(folder: str) -> str:
    """Where a skill folded into a mini-swe-agent export says its files are: where harness-evo installs them."""
    return f"{SANDBOX_ROOT}/skills/{folder}"


def exported_skill_files(folder: Path, skills: list[str], notes: list[str]) -> tuple[dict[str, str], dict[str, bytes]]:
    """The files besides SKILL.md that an export wrote for the folded skills (`skills/<folder>/`), as components (their
    text naming the skill's folder as `${CLAUDE_SKILL_DIR}` again) and assets again."""
    found: tuple[dict[str, str], dict[str, bytes]] = ({}, {})
    for skill in skills:
        home = folder / "skills" / skill
        texts, binaries = files_beside(folder, home)
        texts.pop(f"skills/{skill}/SKILL.md", None)
        found[0].update({path: text.replace(skill_home(skill), SKILL_DIR) for path, text in texts.items()})
        found[1].update(binaries)
        if texts or binaries:
            notes.append(f"skill `{skill}`: its files come from {home} beside the config")
    return found


def files_beside(folder: Path, home: Path) -> tuple[dict[str, str], dict[str, bytes]]:
    """The files under `home`, text and binary, by their path relative to `folder`."""
    if not home.is_dir():
        return {}, {}
    prefix = home.relative_to(folder).as_posix()
    texts, binaries = read_files(home)
    return {f"{prefix}/{path}": text for path, text in texts.items()}, {
        f"{prefix}/{path}": data for path, data in binaries.items()
    }


def read_config(source: Path) -> dict[str, Any]:
    try:
        config = yaml.safe_load(Path(source).read_text())
    except OSError as e:
        raise UserError(f"cannot read {source}: {e.strerror}") from None
    except yaml.YAMLError as e:
        raise UserError(f"{source}: not valid YAML: {str(e).splitlines()[0]}") from None
    if isinstance(config, dict) and "agent" not in config and config and set(config) <= {"environment", "model", "run"}:
        raise UserError(
            f"{source}: only {', '.join(f'`{key}`' for key in config)} settings, an overlay that `mini -c BASE -c "
            f"{Path(source).name}` merges over another config; import that config (the overlay's settings belong to a "
            "run)"
        )
    if not isinstance(config, dict) or not isinstance(config.get("agent"), dict):
        raise UserError(f"{source}: not a mini-swe-agent config (no `agent` section)")
    for section in ("model", "environment"):
        config[section] = config.get(section) or {}
        if not isinstance(config[section], dict):
            raise UserError(f"{source}: `{section}` must be a mapping")
    return config


class _Block(str):
    """A multi-line string, written as a YAML block so that templates stay readable."""


def dump_yaml(config: dict[str, Any]) -> str:
    def blocks(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: blocks(item) for key, item in value.items()}
        return _Block(value) if isinstance(value, str) and "\n" in value else value

    dumper = type("BlockDumper", (yaml.SafeDumper,), {})
    dumper.add_representer(_Block, lambda d, value: d.represent_scalar("tag:yaml.org,2002:str", value, style="|"))
    return yaml.dump(blocks(config), Dumper=dumper, sort_keys=False, allow_unicode=True, width=float("inf"))
