"""The Docker backend: one container per rollout, living no longer than the rollout may; every command a fresh bash
under a hard timeout."""

import io
import logging
import math
import re
import secrets
import struct
import tarfile
import threading
import time
from pathlib import Path, PurePosixPath

import docker
from docker.errors import APIError, DockerException, NotFound
from requests.exceptions import RequestException

from harness_evo.config import SandboxConfig
from harness_evo.errors import InfraError, SandboxUnavailable
from harness_evo.sandbox.base import CommandResult, relative_to_root
from harness_evo.sandbox.images import LABEL, TaskImages, slug
from harness_evo.sandbox.output import CappedOutput, read_until
from harness_evo.sandbox.owner import Owner
from harness_evo.taskset import Task

log = logging.getLogger(__name__)

GRACE_S = 5.0
"""How long past a command's timeout the client still waits for the exec to end before it gives up on it."""
TIMEOUT_NOTICE = "timeout: sending signal"
"""What `timeout --verbose` says on stderr when it kills the command."""
OOM_COUNTERS = ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control")
"""Where the container's cgroup (v2, v1) counts its out-of-memory kills."""
DockerErrors = (APIError, RequestException)
OWNER = f"{LABEL}.owner"
"""Label naming the process that made a container (see `sandbox.owner`)."""


def connect() -> docker.DockerClient:
    """A client of the local Docker engine, or SandboxUnavailable saying how to get one."""
    try:
        client = docker.from_env()
        client.ping()
    except (DockerException, RequestException) as e:
        reason = str(e).splitlines()[0][:200]
        raise SandboxUnavailable(
            f"cannot reach the Docker engine ({reason}); install it with `apt-get install -y docker.io` and start "
            "`dockerd`, or run with `--sandbox local`"
        ) from None
    return client


def prune(client: docker.DockerClient, **labels: str) -> int:
    """Remove every container carrying our label (and these `labels`, when given), running or not; returns how many this
    call removed (one another client is removing already is not counted)."""
    containers = listed(client, [LABEL, *(f"{k}={v}" for k, v in labels.items())])
    removed = 0
    for container in containers:
        try:
            container.remove(force=True)
            removed += 1
        except NotFound:
            pass
        except APIError as e:
            if e.status_code != 409:  # 409: its removal is already in progress
                raise
    return removed


def listed(client: docker.DockerClient, labels: list[str]) -> list:
    """Containers carrying all of `labels`, running or not, as the list call gives them (their labels under
    `attrs["Labels"]`): not inspected one by one, so one removed meanwhile is no error."""
    return client.containers.list(all=True, sparse=True, filters={"label": labels})


def prune_orphans(client: docker.DockerClient) -> int:
    """Remove the containers whose owner process (on this host) is gone, as a run killed with `kill -9` leaves them;
    returns how many."""
    orphans = [
        container
        for container in listed(client, [LABEL, OWNER])
        if (owner := Owner.parse((container.attrs.get("Labels") or {}).get(OWNER, ""))) and owner.gone()
    ]
    for container in orphans:
        try:
            container.remove(force=True)
        except DockerErrors:  # removed by another run meanwhile, or being removed; else the next run tries again
            pass
    return len(orphans)


def lifetime_s(task: Task, config: SandboxConfig) -> float:
    """How long a container of `task` may live: the agent's and the verifier's time limits, and the margin."""
    return task.agent_timeout_s + task.verifier_timeout_s + config.lifetime_margin_s


class DockerBackend:
    """Sandboxes as containers of each task's image, built from its Dockerfile with FROM lines resolved locally."""

    name = "docker"

    def __init__(self, config: SandboxConfig, run_id: str | None = None, client: docker.DockerClient | None = None):
        self.config = config
        self.client = client or connect()
        self.labels = {LABEL: "1", OWNER: Owner.current().label(), **({f"{LABEL}.run": run_id} if run_id else {})}
        """Put on every container, so that leftovers (of one run, of a process that is gone) can be found and pruned."""
        self.images = TaskImages(self.client, config)
        if run_id:
            removed = prune_orphans(self.client)
            if removed:
                log.info("removed %d container(s) left by runs whose process is gone", removed)

    def prepare(self, task: Task) -> None:
        self.images.build(task)

    def open(self, task: Task) -> "DockerSandbox":
        return DockerSandbox.start(self.client, self.images.build(task), task, self.config, self.labels)


class DockerSandbox:
    """One running container (a `sleep` of its lifetime under an init, so that it stops by itself should we die),
    removed by `close` on every path out."""

    def __init__(
        self, client: docker.DockerClient, container_id: str, name: str, config: SandboxConfig, memory_mb: int
    ):
        self.api = client.api
        self.id, self.name, self.config, self.memory_mb = container_id, name, config, memory_mb
        self._oom_kills = 0
        self._closed = False
        self._close_lock = threading.Lock()

    @classmethod
    def start(
        cls, client: docker.DockerClient, image: str, task: Task, config: SandboxConfig, labels: dict[str, str]
    ) -> "DockerSandbox":
        name = f"harness-evo-{slug(task.id)[:40]}-{secrets.token_hex(3)}"
        memory_mb = task.memory_mb or config.memory_mb
        try:
            container = client.containers.create(
                image,
                ["sleep", str(math.ceil(lifetime_s(task, config)))],
                name=name,
                detach=True,
                init=True,
                labels={**labels, f"{LABEL}.task": task.id},
                mem_limit=f"{memory_mb}m",
                memswap_limit=f"{memory_mb}m",
                nano_cpus=int((task.cpus or config.cpus) * 1e9),
                pids_limit=config.pids_limit,
                network_mode="bridge" if task.allow_internet else "none",
            )
        except DockerErrors as e:
            raise InfraError(f"cannot create a container of {image} for {task.id}: {one_line(e)}") from None
        sandbox = cls(client, container.id, name, config, memory_mb)
        try:
            container.start()
        except BaseException as e:
            sandbox.close()
            if isinstance(e, DockerErrors):
                raise InfraError(f"cannot start a container of {image} for {task.id}: {one_line(e)}") from None
            raise
        return sandbox

    def run(self, command: str, timeout_s: float) -> CommandResult:
        # The middle bash merges stderr into stdout at the source (exact interleaving); only `timeout`
        # itself writes to the exec's stderr, so its notice says for sure that the command was killed.
        argv = [
            "timeout",
            "--verbose",
            "-s",
            "KILL",
            f"{max(timeout_s, 0.001):.3f}",
            "bash",
            "-c",
            'exec bash -c "$0" 2>&1',
            command,
        ]
        started = time.monotonic()
        output, notices = CappedOutput(self.config.max_output_chars), bytearray()
        try:
            exec_id = self.api.exec_create(self.id, argv)["Id"]
            stream = self.api.exec_start(exec_id, socket=True)
        except DockerErrors as e:
            raise self._gone(e) from None
        frames = Frames()

        def take(chunk: bytes) -> None:
            for number, data in frames.feed(chunk):
                if number == 1:
                    output.add(data)
                else:
                    notices.extend(data)

        try:
            ended = read_until(stream, started + timeout_s + GRACE_S, take)
        finally:
            close_stream(stream)
        duration = time.monotonic() - started
        exit_code = self._exit_code(exec_id) if ended else None
        errors = notices.decode(errors="replace")
        timed_out = not ended or TIMEOUT_NOTICE in errors
        note = "".join(f"\n{line}" for line in errors.splitlines() if not line.startswith(TIMEOUT_NOTICE))
        if not ended:
            note += f"\n[the command was still running {GRACE_S:.0f} s after its timeout; no longer waiting for it]"
        elif not timed_out and (exit_code is None or exit_code >= 128):
            note += self._death_note()
        return CommandResult(
            output=output.text(note),
            exit_code=-1 if exit_code is None else exit_code,
            timed_out=timed_out,
            duration_s=duration,
        )

    def _exit_code(self, exec_id: str) -> int | None:
        try:
            return self.api.exec_inspect(exec_id)["ExitCode"]
        except DockerErrors as e:
            raise self._gone(e) from None

    def _death_note(self) -> str:
        """Why a command died of a signal: out of memory (a note), or its container is gone (InfraError)."""
        try:
            probe = self.api.exec_create(self.id, ["cat", *OOM_COUNTERS])["Id"]
            text = self.api.exec_start(probe).decode(errors="replace")
            code = self.api.exec_inspect(probe)["ExitCode"]
        except DockerErrors as e:
            raise self._gone(e) from None
        if code not in (0, 1):  # cat ran (1: one of the two counters does not exist)
            raise self._gone(f"a probe command ended with exit code {code}")
        kills = sum(int(n) for n in re.findall(r"^oom_kill (\d+)", text, re.M))
        if kills <= self._oom_kills:
            return ""
        self._oom_kills = kills
        return f"\n[killed: out of memory (the sandbox has {self.memory_mb} MB)]"

    def _gone(self, cause: object) -> InfraError:
        """The error for a container that stopped or vanished under us."""
        if self._closed:
            return InfraError(f"sandbox {self.name} was closed")
        try:
            state = self.api.inspect_container(self.id)["State"]
        except DockerErrors:
            return InfraError(f"sandbox container {self.name} is gone ({one_line(cause)})")
        if state.get("Running"):
            return InfraError(f"sandbox container {self.name} failed: {one_line(cause)}")
        if state.get("ExitCode") == 0 and not state.get("OOMKilled"):
            return InfraError(
                f"sandbox container {self.name} stopped by itself at the end of its lifetime (the task's agent and "
                "verifier time limits plus [sandbox] lifetime_margin_s)"
            )
        oom = ", out of memory" if state.get("OOMKilled") else ""
        return InfraError(
            f"sandbox container {self.name} died ({state.get('Status')}, exit code {state.get('ExitCode')}{oom})"
        )

    def write_files(self, files: dict[str, str | bytes], executable: bool = False) -> None:
        archive = io.BytesIO()
        with tarfile.open(fileobj=archive, mode="w") as tar:
            for path, content in files.items():
                data = content if isinstance(content, bytes) else content.encode()
                info = tarfile.TarInfo(str(relative_to_root(path)))
                info.size, info.mode, info.mtime = len(data), 0o755 if executable else 0o644, time.time()
                tar.addfile(info, io.BytesIO(data))
        self._put(archive.getvalue())

    def copy_dir(self, local: Path, remote: str) -> None:
        target = relative_to_root(remote)
        archive = io.BytesIO()
        with tarfile.open(fileobj=archive, mode="w") as tar:
            if target.parts:
                tar.add(local, arcname=str(target), recursive=False, filter=owned_by_root)
            for path in sorted(Path(local).rglob("*")):
                tar.add(path, arcname=str(target / path.relative_to(local)), recursive=False, filter=owned_by_root)
        self._put(archive.getvalue())

    def _put(self, archive: bytes) -> None:
        try:
            self.api.put_archive(self.id, "/", archive)
        except DockerErrors as e:
            raise self._gone(e) from None

    def read_file(self, remote: str, _links: int = 8) -> str | None:
        try:
            chunks, _ = self.api.get_archive(self.id, remote)
            archive = b"".join(chunks)
        except NotFound as e:
            if self._running():
                return None
            raise self._gone(e) from None
        except DockerErrors as e:
            raise self._gone(e) from None
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            member = tar.next()
            if member is not None and member.issym() and _links:
                return self.read_file(str(PurePosixPath(remote).parent / member.linkname), _links - 1)
            if member is None or not member.isfile():
                return None
            return tar.extractfile(member).read().decode(errors="replace")

    def _running(self) -> bool:
        try:
            return bool(self.api.inspect_container(self.id)["State"].get("Running"))
        except DockerErrors:
            return False

    def close(self) -> None:
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
            try:
                self.api.remove_container(self.id, force=True)
            except NotFound:
                pass
            except DockerErrors as e:
                log.warning(
                    "could not remove sandbox container %s (`harness-evo sandbox prune` will): %s",
                    self.name,
                    one_line(e),
                )

    def __enter__(self) -> "DockerSandbox":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Frames:
    """Splits Docker's multiplexed exec stream into (stream number, payload): 1 is stdout, 2 is stderr."""

    def __init__(self):
        self.buffer = bytearray()

    def feed(self, chunk: bytes) -> list[tuple[int, bytes]]:
        self.buffer += chunk
        frames = []
        while len(self.buffer) >= 8:
            number, size = struct.unpack(">BxxxL", self.buffer[:8])
            if len(self.buffer) < 8 + size:
                break
            frames.append((number, bytes(self.buffer[8 : 8 + size])))
            del self.buffer[: 8 + size]
        return frames


def close_stream(stream) -> None:
    """Close an exec's hijacked socket and the HTTP response docker-py keeps on it (else its fd waits for the GC)."""
    response = getattr(stream, "_response", None)
    if response is not None:
        response.close()
    stream.close()


def owned_by_root(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    return info


def one_line(error: object) -> str:
    text = str(error).strip()
    return text.splitlines()[0][:300] if text else type(error).__name__
