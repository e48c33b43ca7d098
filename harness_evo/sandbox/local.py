"""The local backend: commands on this machine, in a temporary folder, under bubblewrap when it is installed.

It cannot build a Dockerfile. As a best effort, the files next to the task's Dockerfile are copied into
the working folder (the Dockerfile's last WORKDIR, else /sandbox), and the task runs with whatever this
machine has installed. Only the timeout and the output cap are enforced: no memory, CPU or process limits.

With bubblewrap, each command sees the host read-only, without network, with the sandbox's own folders
(the working folder, /tmp, /root, /logs, /tests, /solution and every path written into the sandbox)
bound over it; they keep their contents from one command to the next, writes anywhere else are refused
or lost when the command ends, and no process outlives its command.
Without bubblewrap it isolates nothing: sandbox paths live under the temporary folder, commands run
there as a plain subprocess and see the real file system (an absolute path like /tests is the host's).
"""

import logging
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path, PurePosixPath

from harness_evo.config import SandboxConfig
from harness_evo.errors import InfraError
from harness_evo.sandbox.base import CommandResult, relative_to_root
from harness_evo.sandbox.images import slug
from harness_evo.sandbox.output import CappedOutput, read_until
from harness_evo.taskset import Task
from harness_evo.taskset.task import REWARD_PATH, SOLUTION_DIR, TESTS_DIR

log = logging.getLogger(__name__)

DEFAULT_WORKDIR = "/sandbox"
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
OWN_FOLDERS = ("/tmp", "/root", str(PurePosixPath(REWARD_PATH).parent), TESTS_DIR, SOLUTION_DIR)
"""Folders every local sandbox has of its own, besides its working folder."""
HOST_SPECIAL = {"proc", "dev", "sys", "run"}
"""Top-level host folders never shown as they are (bubblewrap mounts fresh /proc and /dev)."""
WHOLE = {"/tmp", "/root"}
"""Own folders that hide the host's folder of the same name instead of being merged into it."""


class LocalBackend:
    """Sandboxes as temporary folders on this machine (see the module docstring for what that isolates)."""

    name = "local"

    def __init__(self, config: SandboxConfig, run_id: str | None = None, use_bwrap: bool = True):
        self.config, self.run_id = config, run_id
        self.bwrap = shutil.which("bwrap") if use_bwrap else None
        if not self.bwrap:
            log.warning(
                "the local sandbox runs commands as plain subprocesses: it isolates nothing "
                "(install bubblewrap for a read-only host without network, or use Docker)"
            )

    def prepare(self, task: Task) -> None:
        """Nothing to build: the local backend runs the task on this machine as it is."""

    def open(self, task: Task) -> "LocalSandbox":
        prefix = f"harness-evo-{slug(self.run_id)[:40]}-" if self.run_id else "harness-evo-"
        return LocalSandbox(task, self.config, self.bwrap, prefix)


class LocalSandbox:
    """A temporary folder holding the sandbox's own files; removed by `close`."""

    def __init__(self, task: Task, config: SandboxConfig, bwrap: str | None, prefix: str = "harness-evo-"):
        self.config, self.bwrap = config, bwrap
        self.folder = Path(tempfile.mkdtemp(prefix=f"{prefix}{slug(task.id)[:40]}-"))
        self.root = self.folder / "root"
        self.workdir = workdir_of(task)
        self._close_lock = threading.Lock()
        self._closed = False
        self._running: set[subprocess.Popen] = set()
        for folder in (self.workdir, *OWN_FOLDERS):
            self.host_path(folder).mkdir(parents=True, exist_ok=True)
        shutil.copytree(
            task.environment_dir,
            self.host_path(self.workdir),
            symlinks=True,
            dirs_exist_ok=True,
            ignore=lambda folder, names: ["Dockerfile"] if Path(folder) == task.environment_dir else [],
        )

    def host_path(self, remote: str | PurePosixPath) -> Path:
        """Where a sandbox path is kept on this machine."""
        return self.root / relative_to_root(str(remote))

    def run(self, command: str, timeout_s: float) -> CommandResult:
        started = time.monotonic()
        output = CappedOutput(self.config.max_output_chars)
        with self._close_lock:
            if self._closed:
                raise InfraError(f"sandbox {self.folder} was closed")
            process = subprocess.Popen(
                self._argv(command),
                cwd=self.host_path(self.workdir) if not self.bwrap else self.folder,
                env=self._env(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            self._running.add(process)
        try:
            ended = read_until(process.stdout, started + timeout_s, output.add)
            if ended:
                try:
                    process.wait(timeout=max(started + timeout_s - time.monotonic(), 0))
                except subprocess.TimeoutExpired:
                    ended = False
        finally:
            kill_group(process)
            process.wait()
            process.stdout.close()
            self._running.discard(process)
        if self._closed:
            raise InfraError(f"sandbox {self.folder} was closed while a command ran")
        code = process.returncode
        return CommandResult(
            output=output.text(),
            exit_code=128 - code if code < 0 else code,
            timed_out=not ended,
            duration_s=time.monotonic() - started,
        )

    def _argv(self, command: str) -> list[str]:
        if not self.bwrap:
            return ["bash", "-c", command]
        return [
            self.bwrap,
            "--unshare-all",
            "--die-with-parent",
            "--new-session",
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            *layer(self.root, Path("/"), PurePosixPath("/")),
            "--chdir",
            str(self.workdir),
            "--",
            "bash",
            "-c",
            command,
        ]

    def _env(self) -> dict[str, str]:
        home, tmp = ("/root", "/tmp") if self.bwrap else (str(self.host_path("/root")), str(self.host_path("/tmp")))
        return {"PATH": PATH, "HOME": home, "TMPDIR": tmp, "LANG": "C.UTF-8"}

    def write_files(self, files: dict[str, str | bytes], executable: bool = False) -> None:
        for remote, content in files.items():
            path = self.host_path(remote)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
            path.chmod(0o755 if executable else 0o644)

    def copy_dir(self, local: Path, remote: str) -> None:
        shutil.copytree(local, self.host_path(remote), symlinks=True, dirs_exist_ok=True)

    def read_file(self, remote: str) -> str | None:
        path = self.host_path(remote)
        return path.read_text(errors="replace") if path.is_file() else None

    def close(self) -> None:
        """Kill what is still running (a command of another thread), then remove the folder."""
        with self._close_lock:
            self._closed = True
            for process in list(self._running):
                kill_group(process)
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> "LocalSandbox":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def layer(own: Path, host: Path, at: PurePosixPath) -> list[str]:
    """bubblewrap arguments that show the folder `own` at `at`, merged into the host folder `host` shown read-only.

    A host entry is shown as it is unless `own` has an entry of the same name; an own folder whose host
    counterpart is a folder is merged into it the same way, one level down; any other own entry hides the host's.
    """
    mine = {path.name: path for path in own.iterdir()}
    args: list[str] = []
    for entry in sorted(host.iterdir()):
        if entry.name in mine or (at == PurePosixPath("/") and entry.name in HOST_SPECIAL):
            continue
        target = str(at / entry.name)
        args += ["--symlink", os.readlink(entry), target] if entry.is_symlink() else ["--ro-bind", str(entry), target]
    for name, path in sorted(mine.items()):
        target, counterpart = at / name, host / name
        if path.is_dir() and counterpart.is_dir() and not counterpart.is_symlink() and str(target) not in WHOLE:
            args += ["--dir", str(target), *layer(path, counterpart, target)]
        else:
            args += ["--bind", str(path), str(target)]
    return args


def kill_group(process: subprocess.Popen) -> None:
    """SIGKILL a command's process group (its own session), unless it has ended;
    bubblewrap takes its namespace along."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def workdir_of(task: Task) -> PurePosixPath:
    """The last WORKDIR of the task's Dockerfile (relative ones joined to the one before), else DEFAULT_WORKDIR."""
    workdir = PurePosixPath("/")
    for value in re.findall(r"^\s*WORKDIR\s+(\S+)", task.dockerfile.read_text(), re.IGNORECASE | re.MULTILINE):
        workdir = workdir / value.strip("'\"")
    return workdir if workdir != PurePosixPath("/") else PurePosixPath(DEFAULT_WORKDIR)
