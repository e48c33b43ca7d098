"""One task folder in the Harbor format (as used by Terminal-Bench 2.0 and SkillsBench)."""

import re
import tomllib
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from harness_evo.config import one_line
from harness_evo.errors import TaskError

CATEGORIES = (
    "files",
    "text-processing",
    "data-wrangling",
    "debugging",
    "scripting",
    "archives-permissions",
    "git",
    "processes-env",
    "log-analysis",
    "sqlite",
    "config-edits",
)
"""The documented categories of the built-in suite; external suites may use their own."""

REWARD_PATH = "/logs/verifier/reward.txt"
TESTS_DIR = "/tests"
SOLUTION_DIR = "/solution"


class Task(BaseModel):
    """A task: what the agent is told, the image it runs in, and how its outcome is verified."""

    id: str
    """The folder name; unique within a suite."""
    folder: Path
    """The task folder."""
    instruction: str
    """The text of instruction.md, shown to the agent."""
    category: str = "uncategorized"
    """[metadata] category."""
    difficulty: str = "unknown"
    """[metadata] difficulty: easy, medium or hard."""
    tags: list[str] = Field(default_factory=list)
    """[metadata] tags."""
    agent_timeout_s: float = 600.0
    """[agent] timeout_sec: wall time of the agent's whole episode."""
    verifier_timeout_s: float = 120.0
    """[verifier] timeout_sec: wall time of tests/test.sh."""
    build_timeout_s: float = 600.0
    """[environment] build_timeout_sec."""
    allow_internet: bool = False
    """[environment] allow_internet: network inside the sandbox (off unless the task asks)."""
    cpus: float | None = None
    """[environment] cpus, overriding the sandbox default."""
    memory_mb: int | None = None
    """[environment] memory_mb (or the older `memory`, as "2G" or "512M"), overriding the sandbox default."""
    storage_mb: int | None = None
    """[environment] storage_mb (or the older `storage`): the disk the task expects; recorded,
    not enforced by our sandboxes."""

    @property
    def environment_dir(self) -> Path:
        return self.folder / "environment"

    @property
    def dockerfile(self) -> Path:
        return self.environment_dir / "Dockerfile"

    @property
    def tests_dir(self) -> Path:
        return self.folder / "tests"

    @property
    def solution_dir(self) -> Path:
        return self.folder / "solution"


UNITS_MB = {"": 1, "K": 1 / 1024, "M": 1, "G": 1024, "T": 1024 * 1024}
"""Size suffix (of "512M", "2G", also with "B" or "i", as "2GiB") -> megabytes."""


def megabytes(environment: dict, field: str, config_path: Path) -> int | None:
    """`<field>_mb` of an [environment] table, else Harbor's older `<field>` as a size ("2G", "512M"), in megabytes."""
    if f"{field}_mb" in environment:
        return environment[f"{field}_mb"]
    value = environment.get(field)
    if value is None or isinstance(value, int) and not isinstance(value, bool):
        return value
    size = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*", str(value), re.IGNORECASE)
    if not size:
        raise TaskError(f'{config_path}: environment.{field} must be a size such as "2G" or "512M", not {value!r}')
    return max(1, round(float(size.group(1)) * UNITS_MB[size.group(2).upper()]))


def load_task(folder: Path) -> Task:
    """Read a Harbor task folder; a TaskError names the file and the problem."""
    folder = Path(folder)
    config_path = folder / "task.toml"
    try:
        config = tomllib.loads(config_path.read_text())
    except FileNotFoundError:
        raise TaskError(f"{config_path}: missing") from None
    except UnicodeDecodeError:
        raise TaskError(f"{config_path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as e:
        raise TaskError(f"{config_path}: bad TOML: {e}") from None
    sections = {name: config.get(name, {}) for name in ("metadata", "agent", "verifier", "environment")}
    for name, value in sections.items():
        if not isinstance(value, dict):
            raise TaskError(f"{config_path}: [{name}] must be a table, not the {type(value).__name__} {value!r}")
    for required in ("instruction.md", "tests/test.sh", "environment/Dockerfile"):
        if not (folder / required).is_file():
            image = sections["environment"].get("docker_image")
            hint = (
                f" (it names the prebuilt image {image}, and no registry is reachable)"
                if image and required.startswith("environment")
                else ""
            )
            raise TaskError(f"{folder / required}: missing{hint}")
    metadata, agent, verifier, environment = sections.values()
    try:
        instruction = (folder / "instruction.md").read_text().strip()
    except UnicodeDecodeError:
        raise TaskError(f"{folder / 'instruction.md'}: not UTF-8 text") from None
    tags = metadata.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        raise TaskError(f"{config_path}: metadata.tags must be a list of strings, not {tags!r}")
    try:
        return Task(
            id=folder.name,
            folder=folder.resolve(),
            instruction=instruction,
            category=metadata.get("category", "uncategorized"),
            difficulty=metadata.get("difficulty", "unknown"),
            tags=tags,
            agent_timeout_s=float(agent.get("timeout_sec", 600.0)),
            verifier_timeout_s=float(verifier.get("timeout_sec", 120.0)),
            build_timeout_s=float(environment.get("build_timeout_sec", 600.0)),
            allow_internet=bool(environment.get("allow_internet", False)),
            cpus=environment.get("cpus"),
            memory_mb=megabytes(environment, "memory", config_path),
            storage_mb=megabytes(environment, "storage", config_path),
        )
    except ValidationError as e:
        raise TaskError(f"{config_path}: {one_line(e)}") from None
    except (ValueError, TypeError) as e:
        raise TaskError(f"{config_path}: {str(e).splitlines()[0]}") from None
