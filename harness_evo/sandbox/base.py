"""The sandbox protocol: one isolated place per rollout where commands run under a hard timeout."""

from pathlib import Path, PurePosixPath
from typing import Protocol

from pydantic import BaseModel

from harness_evo.taskset import Task


class CommandResult(BaseModel):
    """What one command did."""

    output: str
    """stdout and stderr interleaved, cut to the sandbox's output cap."""
    exit_code: int
    """The command's exit status (137 or -1 when it was killed)."""
    timed_out: bool = False
    """True when the command hit its timeout and was killed."""
    duration_s: float = 0.0
    """Wall time of the command."""


class Sandbox(Protocol):
    """One rollout's isolated environment. Closed on every path out (use it as a context manager)."""

    def run(self, command: str, timeout_s: float) -> CommandResult:
        """Run `command` with bash in the task's working directory; a fresh shell each time."""
        ...

    def write_files(self, files: dict[str, str | bytes], executable: bool = False) -> None:
        """Create files at absolute sandbox paths (parents created), from text or bytes."""
        ...

    def copy_dir(self, local: Path, remote: str) -> None:
        """Copy a local folder's contents to an absolute sandbox path."""
        ...

    def read_file(self, remote: str) -> str | None:
        """A file's text, or None when it does not exist."""
        ...

    def close(self) -> None:
        """Remove the sandbox and everything in it; safe to call twice."""
        ...

    def __enter__(self) -> "Sandbox": ...

    def __exit__(self, *exc: object) -> None: ...


class SandboxBackend(Protocol):
    """Makes sandboxes for tasks. `prepare` may take long (image builds) and raises InfraError on failure."""

    name: str

    def prepare(self, task: Task) -> None:
        """Make everything a sandbox of this task needs (e.g. build its image); cached."""
        ...

    def open(self, task: Task) -> Sandbox:
        """A new, running sandbox for one rollout of `task`."""
        ...


def relative_to_root(path: str) -> PurePosixPath:
    """An absolute sandbox path as a path relative to `/`; ValueError for a relative one or one with `..`."""
    pure = PurePosixPath(path)
    if not pure.is_absolute() or ".." in pure.parts:
        raise ValueError(f"sandbox paths are absolute and without '..': {path!r}")
    return pure.relative_to("/")
