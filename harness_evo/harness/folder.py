"""Load, validate, hash, save and render a harness folder (see "Harness folder" in DESIGN.md)."""

import hashlib
import json
import tomllib
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, Literal

import jinja2
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness_evo.config import one_line
from harness_evo.errors import HarnessError, first_line
from harness_evo.harness import assets as binary
from harness_evo.harness.edit import Edit
from harness_evo.harness.examples import SAMPLE_EXAMPLE, Example, parse_example
from harness_evo.harness.features import SAMPLE_FINDINGS, unshown
from harness_evo.harness.frontmatter import split_frontmatter
from harness_evo.harness.paths import safe_relative
from harness_evo.harness.retrieval import ExampleIndex
from harness_evo.templating import environment

REQUIRED_TEMPLATES = ("system.md.j2", "instance.md.j2", "observation.md.j2", "format_error.md.j2")
OPTIONAL_TEMPLATES = ("confirm_done.md.j2",)
EXPORT_NOTES = "EXPORT.md"
"""The notes an export writes beside the harness (where it came from, what was lost): not a component when loaded."""
SANDBOX_ROOT = "/opt/harness"
"""Where tools and skills are installed inside the sandbox."""
SKILL_DIR = "${CLAUDE_SKILL_DIR}"
"""Claude Code's name, in a skill's files, for the folder that holds its SKILL.md: replaced, when the skill is installed
in the sandbox, by the folder it is installed in."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class HarnessInfo(Strict):
    """What the harness is."""

    name: str
    """Short name of the harness."""
    description: str = ""
    """What the harness is for."""


class AgentSettings(Strict):
    """How the agent loop runs the harness, and the features it enforces in code (each off by default)."""

    step_limit: int = Field(30, ge=1)
    """The agent stops after this many model replies."""
    command_timeout_s: float = Field(30, gt=0)
    """A command is killed after this many seconds."""
    max_observation_chars: int = Field(4000, ge=100)
    """Command output shown to the model is cut to this many characters (head and tail kept)."""
    action_format: Literal["bash-block", "tool-calls"] = "bash-block"
    """`bash-block`: one fenced bash block per reply; `tool-calls`: native tool calls of the model."""
    examples: int = Field(0, ge=0)
    """Worked examples (`examples/<name>.md`) shown per task: the instance template's `examples` are this many, the most
    similar to the task's instruction; 0: none."""
    confirm_done: bool | None = None
    """Ask the agent once to confirm when it says it is done: unset asks when the harness has
    `prompts/confirm_done.md.j2`; true asks (with that template, or a built-in question); false never asks."""
    discovery: bool = False
    """Workspace discovery: before the first reply, run `discovery_commands` in the sandbox, and `head` each file the
    instruction names that exists there, and show what they printed in the first prompt (the instance template's
    `discovery`); a command that fails or times out is shown as such, and the episode goes on."""
    discovery_commands: list[Annotated[str, Field(min_length=1)]] = Field(default_factory=lambda: ["pwd", "ls -la"])
    """The commands workspace discovery runs, in the task's working folder, each under `command_timeout_s`."""
    discovery_head_lines: int = Field(10, ge=0)
    """Workspace discovery shows this many first lines of each file the instruction names, and lists each folder it
    names (at most 5 in all); 0: neither."""
    loop_guard: bool = False
    """When the agent runs a command it already ran and gets the same output again, the observation says so (the
    observation template's `repeated`: how many times before),
    and the episode ends at the `loop_guard_repeats`th repeat."""
    loop_guard_repeats: int = Field(3, ge=1)
    """With `loop_guard`, the episode ends (exit reason `loop_guard`) when this many commands have repeated an earlier
    command and its output."""
    missing_hint: bool = False
    """When a command's output says a program is not installed, the observation names it (`missing`) and the installed
    programs that can do its job (`available`, looked up in the sandbox)."""


class SamplingSettings(Strict):
    """The solver's sampling settings for this harness; each unset one is the run's `[models.solver]` own."""

    temperature: float | None = Field(None, ge=0, le=2)
    """Sampling temperature of the solver's replies."""
    max_tokens: int | None = Field(None, ge=16, le=8192)
    """Longest reply, in tokens."""
    stop: list[str] = Field(default_factory=list)
    """Stop sequences besides the action format's own."""


class HarnessToml(Strict):
    """A harness folder's `harness.toml`."""

    harness: HarnessInfo
    agent: AgentSettings = Field(default_factory=AgentSettings)
    model: SamplingSettings = Field(default_factory=SamplingSettings)


class Tool(Strict):
    """A command the agent can call; installed in the sandbox under /opt/harness/tools/<name>/."""

    name: str
    description: str
    """What the tool does and how to call it; shown to the agent."""
    command: str
    """Shell command run for a call; `$TOOL_DIR` is the tool's folder in the sandbox."""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    """JSON schema of the arguments (for `tool-calls`; in `bash-block` they are command-line arguments)."""

    @property
    def folder(self) -> str:
        return f"{SANDBOX_ROOT}/tools/{self.name}"


class Skill(BaseModel):
    """An Agent Skill: frontmatter `name` and `description`, and a markdown body read on demand."""

    name: str
    description: str
    body: str
    location: str | None = None
    """Where its SKILL.md is in the sandbox, when not the harness's own skills folder (a skill a task brings)."""

    @property
    def path(self) -> str:
        return self.location or f"{SANDBOX_ROOT}/skills/{self.name}/SKILL.md"


class Harness:
    """An immutable set of components (relative path -> text) and binary assets (relative path -> bytes, see
    harness/assets.py); the folder is only its serialization."""

    def __init__(
        self, components: dict[str, str], source: str = "<components>", assets: dict[str, bytes] | None = None
    ):
        self.components = {safe_relative(path): text for path, text in sorted(components.items())}
        self.assets = {safe_relative(path): data for path, data in sorted((assets or {}).items())}
        self.source = source
        self._validate()

    @classmethod
    def load(cls, folder: Path) -> "Harness":
        folder = Path(folder)
        if not folder.is_dir():
            raise HarnessError(f"{folder}: not a harness folder (no such directory)")
        components, assets = {}, {}
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(folder).as_posix()
            if path.is_symlink():
                raise HarnessError(f"{folder / relative}: links are not allowed in a harness folder")
            if not path.is_file() or "__pycache__" in path.parts or relative == EXPORT_NOTES:
                continue
            data = path.read_bytes()
            text = binary.as_text(data)
            if text is not None:
                components[relative] = text
            elif binary.placeable(relative):
                assets[relative] = data
            else:
                raise HarnessError(
                    f"{folder / relative}: not a text file; binary files may only be in skill and tool folders"
                )
        return cls(components, source=str(folder), assets=assets)

    def save(self, folder: Path) -> Path:
        folder = Path(folder)
        for relative, content in {**self.components, **self.assets}.items():
            path = folder / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
            if relative.startswith("tools/") and content.startswith(b"#!" if isinstance(content, bytes) else "#!"):
                path.chmod(0o755)
        return folder

    @cached_property
    def hash(self) -> str:
        """sha256 of the sorted components, and of the assets' own sha256s when there are any."""
        counted: dict = (
            self.components
            if not self.assets
            else {"components": self.components, "assets": binary.digest(self.assets)}
        )
        return hashlib.sha256(json.dumps(counted, sort_keys=True).encode()).hexdigest()

    @property
    def short_hash(self) -> str:
        return self.hash[:12]

    def apply(self, edit: Edit) -> "Harness":
        """The harness with `edit` applied to its components; its assets stay as they are."""
        return Harness(edit.apply(self.components), source="", assets=self.assets)

    def changed_paths(self, other: "Harness") -> list[str]:
        """The components that differ from `other`'s (added, removed or changed), in path order."""
        return sorted(
            path
            for path in self.components.keys() | other.components.keys()
            if self.components.get(path) != other.components.get(path)
        )

    # parsed views of the components

    @cached_property
    def settings(self) -> HarnessToml:
        return self._parse_toml("harness.toml", HarnessToml)

    @property
    def agent(self) -> AgentSettings:
        return self.settings.agent

    @property
    def size(self) -> int:
        """Characters of all components plus the rendered system prompt: what the size budget counts."""
        return sum(len(text) for text in self.components.values()) + len(self.render("system.md.j2"))

    @property
    def sampling(self) -> SamplingSettings:
        return self.settings.model

    @property
    def confirms_done(self) -> bool:
        """Whether the agent is asked to confirm when it says it is done (see `AgentSettings.confirm_done`)."""
        setting = self.agent.confirm_done
        return self.has_template("confirm_done.md.j2") if setting is None else setting

    @property
    def name(self) -> str:
        return self.settings.harness.name

    @cached_property
    def tools(self) -> list[Tool]:
        tools = []
        for path in self.components:
            parts = path.split("/")
            if len(parts) == 3 and parts[0] == "tools" and parts[2] == "tool.toml":
                data = self._parse_toml(path, None)
                if not isinstance(data.get("command"), str) or not data["command"].strip():
                    raise self._error(path, "a tool needs a `command`")
                try:
                    tools.append(Tool(name=parts[1], **data))
                except ValidationError as e:
                    raise self._error(path, one_line(e)) from None
        return tools

    def tool_files(self, tool: Tool) -> dict[str, str]:
        prefix = f"tools/{tool.name}/"
        return {path[len(prefix) :]: text for path, text in self.components.items() if path.startswith(prefix)}

    @cached_property
    def skills(self) -> list[Skill]:
        skills = []
        for path, text in self.components.items():
            parts = path.split("/")
            if len(parts) == 3 and parts[0] == "skills" and parts[2] == "SKILL.md":
                front, body = split_frontmatter(text, self.where(path))
                for key in ("name", "description"):
                    if not isinstance(front.get(key), str) or not front[key].strip():
                        raise self._error(path, f"frontmatter needs a `{key}`")
                if front["name"].strip() != parts[1]:
                    raise self._error(
                        path,
                        f"frontmatter `name` {front['name']!r} must be its folder's name {parts[1]!r}, "
                        "where the agent is pointed to read it",
                    )
                skills.append(Skill(name=front["name"], description=front["description"].strip(), body=body))
        return skills

    @cached_property
    def examples(self) -> list[Example]:
        """Every `examples/<name>.md`, in name order."""
        examples = []
        for path, text in self.components.items():
            if not path.startswith("examples/"):
                continue
            name = path.removeprefix("examples/").removesuffix(".md")
            if not path.endswith(".md") or "/" in name:
                raise self._error(path, "examples/ holds only <name>.md files, one solved episode each")
            if self.agent.action_format != "bash-block":
                raise self._error(
                    path,
                    "examples are episodes in the bash-block action format, and this harness's is "
                    f"{self.agent.action_format!r}",
                )
            examples.append(parse_example(text, name, self.where(path)))
        return examples

    def examples_for(self, instruction: str) -> list[Example]:
        """The `[agent] examples` examples most similar to `instruction` (none when it is 0)."""
        return self._example_index.most_similar(instruction, self.agent.examples)

    @cached_property
    def _example_index(self) -> ExampleIndex:
        return ExampleIndex(self.examples)

    def files_for_sandbox(self) -> dict[str, str | bytes]:
        """Sandbox path -> text (or bytes, for an asset) of every tool and skill file, installed under /opt/harness
        (`${CLAUDE_SKILL_DIR}` in a skill's text files is its folder there)."""
        files: dict[str, str | bytes] = {
            f"{SANDBOX_ROOT}/{path}": text for path, text in self.components.items() if path.startswith("tools/")
        }
        for path, text in self.components.items():
            if path.startswith("skills/"):
                files[f"{SANDBOX_ROOT}/{path}"] = installed_skill_text(
                    text, f"{SANDBOX_ROOT}/skills/{path.split('/')[1]}"
                )
        return files | {f"{SANDBOX_ROOT}/{path}": data for path, data in self.assets.items()}

    # rendering

    def render(self, template: str, **context: Any) -> str:
        """Render `prompts/<template>` with the common context (tools, skills, agent) plus `context`,
        which may replace it."""
        source = self.components.get(f"prompts/{template}")
        if source is None:
            raise self._error(f"prompts/{template}", "missing template")
        defaults = {
            name: value for name, value in OPTIONAL_VARIABLES.items() if name in TEMPLATE_VARIABLES.get(template, ())
        }
        try:
            return (
                self._jinja.from_string(source)
                .render({"tools": self.tools, "skills": self.skills, "agent": self.agent, **defaults, **context})
                .strip()
            )
        except jinja2.UndefinedError as e:
            known = ", ".join(["agent", "tools", "skills", *TEMPLATE_VARIABLES.get(template, ())])
            raise self._error(f"prompts/{template}", f"does not render: {e} (it can use {known})") from None
        except jinja2.TemplateError as e:
            raise self._error(f"prompts/{template}", f"does not render: {first_line(e)}") from None
        except (
            Exception
        ) as e:  # an expression of the template failed ({{ 1/0 }}, {{ 'a' + 1 }}): the author's code, not ours
            raise self._error(f"prompts/{template}", f"does not render: {type(e).__name__}: {first_line(e)}") from None

    def has_template(self, template: str) -> bool:
        return f"prompts/{template}" in self.components

    @cached_property
    def _jinja(self) -> jinja2.Environment:
        return environment(trim_blocks=False)

    # validation

    def _validate(self) -> None:
        if "harness.toml" not in self.components:
            raise self._error("", "missing harness.toml")
        if both := sorted(self.components.keys() & self.assets.keys()):
            raise self._error(both[0], "is both a text component and a binary file")
        if problems := binary.problems(self.assets):
            raise self._error("", problems[0])
        self.settings, self.tools, self.skills, self.examples  # noqa: B018 - parse everything now, so errors surface at load
        for template in REQUIRED_TEMPLATES:
            if f"prompts/{template}" not in self.components:
                raise self._error(f"prompts/{template}", "missing, and every harness needs this template")
        for template in REQUIRED_TEMPLATES + OPTIONAL_TEMPLATES:
            if self.has_template(template):
                self.render(template, **{name: SAMPLE_CONTEXT[name] for name in TEMPLATE_VARIABLES[template]})
        if problems := unshown(self, SAMPLE_CONTEXT | OPTIONAL_VARIABLES):
            raise self._error("harness.toml", problems[0])

    def _parse_toml(self, path: str, model: type[BaseModel] | None) -> Any:
        try:
            data = tomllib.loads(self.components[path])
        except tomllib.TOMLDecodeError as e:
            raise self._error(path, f"bad TOML: {e}") from None
        if model is None:
            return data
        try:
            return model.model_validate(data)
        except ValidationError as e:
            raise self._error(path, one_line(e)) from None

    def where(self, path: str) -> str:
        """Where `path` is, for a message: in the folder the harness was loaded from, if it was (an edit's harness
        is in no folder, and its parent's folder does not hold the broken file)."""
        return "/".join(part for part in (self.source, path) if part)

    def _error(self, path: str, problem: str) -> HarnessError:
        return HarnessError(f"{where}: {problem}" if (where := self.where(path)) else problem)


def installed_skill_text(text: str, folder: str) -> str:
    """A skill file's text as installed in `folder` of the sandbox: `${CLAUDE_SKILL_DIR}` is that folder."""
    return text.replace(SKILL_DIR, folder)


SAMPLE_CONTEXT = {
    "instruction": "Create hello.txt containing 'hi'.",
    "output": "hi",
    "exit_code": 0,
    "timed_out": False,
    "step": 1,
    "steps_left": 9,
    "elapsed_s": 42.0,
    "time_limit_s": 600.0,
    "error": "No bash block found.",
    "examples": [SAMPLE_EXAMPLE],
    "discovery": SAMPLE_FINDINGS,
    "repeated": 1,
    "missing": "sqlite3",
    "available": ["python3 (its sqlite3 module)"],
}
"""Sample values of the variables the agent loop passes to templates (besides `agent`, `tools` and `skills`);
`elapsed_s` is the episode's wall time so far and `time_limit_s` the task's limit on it (seconds). `examples`
are the worked examples retrieved for the task, none when `[agent] examples` is 0; each has `text` (the episode as its
file holds it), `instruction`, `turns` (each a `reply` and its `observation`), `task`, `category`, `tags`, `source`,
`name`. The features of `harness/features.py` give the rest, each empty when its setting is off: `discovery` (what
workspace discovery found: each a `command`, its `output`, `exit_code`, `timed_out` and `failed`), `repeated` (how many
times the command ran before with the same output), `missing` (a program the command's output says is not installed) and
`available` (what is installed to do its job)."""
TEMPLATE_VARIABLES = {
    "system.md.j2": (),
    "instance.md.j2": ("instruction", "step", "steps_left", "examples", "discovery"),
    "observation.md.j2": (
        "output",
        "exit_code",
        "timed_out",
        "step",
        "steps_left",
        "elapsed_s",
        "time_limit_s",
        "repeated",
        "missing",
        "available",
    ),
    "format_error.md.j2": ("error",),
    "confirm_done.md.j2": (),
}
"""What the agent loop passes to each template; a template using anything else fails at load time."""
OPTIONAL_VARIABLES: dict[str, Any] = {"examples": [], "discovery": [], "repeated": 0, "missing": "", "available": []}
"""Variables a caller outside the agent loop may leave out, and their value then: a prompt rendered without a task shows
no examples, and one rendered without a sandbox no feature's result."""
