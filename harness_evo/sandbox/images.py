"""Images without a registry: the base image from Debian packages, task images from their Dockerfiles.

A task's `FROM` lines are resolved through aliases to images present on this machine (by default the
common Python, Debian and Ubuntu images all become the base image); its image is tagged by the hash of
its build context, so an unchanged task is never built twice.
"""

import fcntl
import fnmatch
import hashlib
import logging
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from string import Template

import docker
from docker.errors import APIError, BuildError, ImageNotFound
from docker.utils import parse_repository_tag
from requests.exceptions import RequestException

from harness_evo.config import SandboxConfig
from harness_evo.errors import InfraError, SandboxUnavailable
from harness_evo.taskset import Task

log = logging.getLogger(__name__)

LABEL = "harness-evo"
"""Label key on every container and image we make."""
BUILTIN_ALIASES = (
    r"python:3(\.\d+)*(-slim)?(-bookworm)?",
    r"debian:(bookworm|12)([-.][\w.-]+)?",
    r"ubuntu:[\w.-]+",
)
"""`FROM` images (normalized, as regular expressions) that the base image stands in for."""
LOCKS = Path(tempfile.gettempdir()) / "harness-evo-locks"
RECIPE = Path(__file__).resolve().parents[2] / "sandboxes" / "base"
DEBIAN_MIRROR = "http://deb.debian.org/debian"
CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
BASE_CHANGES = (
    f"ENV SSL_CERT_FILE={CA_BUNDLE}",
    f"ENV PIP_CERT={CA_BUNDLE}",
    "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "WORKDIR /",
    'CMD ["bash"]',
)
"""Dockerfile instructions applied by `docker import` to the debootstrapped root file system."""
BUILD_LOG = Path(tempfile.gettempdir()) / "harness-evo-build-base.log"

FROM_LINE = re.compile(r"^(?P<lead>\s*FROM\s+(?:--\S+\s+)*)(?P<image>\S+)(?P<rest>.*)$", re.IGNORECASE | re.DOTALL)
STAGE_NAME = re.compile(r"\s+AS\s+(\S+)", re.IGNORECASE)
ARG_LINE = re.compile(r"^\s*ARG\s+(\w+)(?:=(\S*))?", re.IGNORECASE)
HEREDOC = re.compile(r"<<(-?)([\"']?)([A-Za-z_]\w*)\2")
HEREDOC_INSTRUCTIONS = ("RUN", "COPY", "ADD")


def instruction_lines(text: str) -> list[int]:
    """Indexes (in `text.splitlines(keepends=True)`) of the lines that start an instruction, as Docker reads them:
    not comments, not continuations of the line before (a trailing backslash),
    not the bodies of heredocs (`RUN <<EOF`)."""
    starts, closing, continued = [], [], False
    for index, line in enumerate(text.splitlines(keepends=True)):
        if closing:
            strip_tabs, word = closing[0]
            if (line.lstrip("\t") if strip_tabs else line).rstrip("\r\n") == word:
                closing.pop(0)
            continue
        stripped = line.strip()
        if not continued and (not stripped or stripped.startswith("#")):
            continue
        if not continued:
            starts.append(index)
            keyword = stripped.split(maxsplit=1)[0].upper()
            heredocs = keyword in HEREDOC_INSTRUCTIONS
        if heredocs:
            closing += [(dash == "-", word) for dash, _, word in HEREDOC.findall(line)]
        continued = stripped.endswith("\\")
    return starts


def normalize(image: str) -> str:
    """`docker.io/library/python:3.11@sha256:...` -> `python:3.11`; no tag means `:latest`."""
    name = image.split("@", 1)[0].removeprefix("docker.io/").removeprefix("index.docker.io/").removeprefix("library/")
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


def resolve_image(image: str, config: SandboxConfig) -> str:
    """The local image a `FROM` name stands for: the configured aliases (glob patterns) first,
    then the built-in ones."""
    name = normalize(image)
    for pattern, target in config.image_aliases.items():
        if fnmatch.fnmatchcase(name, normalize(pattern)) or fnmatch.fnmatchcase(image, pattern):
            return target
    if any(re.fullmatch(pattern, name) for pattern in BUILTIN_ALIASES):
        return config.base_image
    return image


def uses_heredocs(text: str) -> bool:
    lines = text.splitlines()
    return any(
        HEREDOC.search(lines[i]) and lines[i].split(maxsplit=1)[0].upper() in HEREDOC_INSTRUCTIONS
        for i in instruction_lines(text)
    )


def resolve_dockerfile(text: str, config: SandboxConfig) -> tuple[str, list[str]]:
    """The Dockerfile with every `FROM` image resolved, and the images it starts from (not earlier stages)."""
    lines, starts = text.splitlines(keepends=True), instruction_lines(text)
    froms = [i for i in starts if FROM_LINE.match(lines[i])]
    header = [lines[i] for i in starts if not froms or i < froms[0]]
    args = {
        name: (value or "").strip("'\"")
        for line in header
        if (arg := ARG_LINE.match(line))
        for name, value in [arg.groups()]
    }
    stages: set[str] = set()
    bases: list[str] = []
    for index in froms:
        match = FROM_LINE.match(lines[index])
        image = Template(match["image"]).safe_substitute(args)
        earlier_stage = image.lower() in stages or image == "scratch"
        if stage := STAGE_NAME.match(match["rest"]):
            stages.add(stage[1].lower())
        if earlier_stage:
            continue
        resolved = resolve_image(image, config)
        bases.append(resolved)
        lines[index] = f"{match['lead']}{resolved}{match['rest']}"
    return "".join(lines), bases


def context_hash(folder: Path, dockerfile: str, base_ids: list[str]) -> str:
    """Hash of what a build depends on: the resolved Dockerfile, the ids of its base images,
    every file of the folder."""
    digest = hashlib.sha256()
    for part in (dockerfile, *base_ids):
        digest.update(part.encode() + b"\0")
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.name != "Dockerfile":
            digest.update(f"{path.relative_to(folder).as_posix()}\0{os.access(path, os.X_OK)}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def slug(text: str) -> str:
    """`text` as a Docker repository or container name component."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "task"


@contextmanager
def image_lock(tag: str) -> Iterator[None]:
    """Held while one image is looked up and built: across threads and processes, each with their own file handle."""
    LOCKS.mkdir(parents=True, exist_ok=True)
    with (LOCKS / f"{slug(tag)}.lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


class TaskImages:
    """Builds task images with the legacy builder, once per build context."""

    def __init__(self, client: docker.DockerClient, config: SandboxConfig):
        self.client, self.config = client, config

    def build(self, task: Task) -> str:
        """The tag of `task`'s image, built now if no image of the same build context exists."""
        dockerfile, bases = resolve_dockerfile(task.dockerfile.read_text(), self.config)
        base_ids = [self._local_image(task, base) for base in bases]
        tag = f"harness-evo/task-{slug(task.id)[:80]}:{context_hash(task.environment_dir, dockerfile, base_ids)[:16]}"
        with image_lock(tag):
            if not self._exists(tag):
                self._build(task, dockerfile, tag)
        return tag

    def _exists(self, tag: str) -> bool:
        try:
            self.client.images.get(tag)
        except ImageNotFound:
            return False
        return True

    def _local_image(self, task: Task, image: str) -> str:
        try:
            return self.client.images.get(image).id
        except ImageNotFound:
            if image == self.config.base_image:
                raise SandboxUnavailable(
                    f"the base image {image} is missing; build it with `harness-evo sandbox build-base`"
                ) from None
            raise InfraError(
                f"{task.id}: FROM {image} is not an image on this machine and no registry is reachable; "
                "build it locally or map it to one with [sandbox] image_aliases"
            ) from None

    def _build(self, task: Task, dockerfile: str, tag: str) -> None:
        log.info("building the image of %s as %s", task.id, tag)
        with tempfile.NamedTemporaryFile("w", prefix="harness-evo-", suffix=".Dockerfile") as resolved:
            resolved.write(dockerfile)
            resolved.flush()
            try:
                self.client.images.build(
                    path=str(task.environment_dir),
                    dockerfile=resolved.name,
                    tag=tag,
                    rm=True,
                    forcerm=True,
                    pull=False,
                    labels={LABEL: "1", f"{LABEL}.task": task.id},
                    timeout=task.build_timeout_s,
                )
            except BuildError as e:
                lines = [
                    line
                    for entry in e.build_log
                    for line in str(entry.get("stream") or entry.get("error") or "").splitlines()
                    if line.strip()
                ]
                raise InfraError(f"{task.id}: image build failed: {e.msg}\n" + "\n".join(lines[-10:])) from None
            except (APIError, RequestException) as e:
                if uses_heredocs(dockerfile) and "unknown instruction" in str(e):
                    raise InfraError(
                        f"{task.id}: its Dockerfile writes files with heredocs (RUN <<EOF), which need BuildKit; "
                        "this Docker engine builds with the classic builder, which cannot read them"
                    ) from None
                raise InfraError(f"{task.id}: image build failed: {_reason(e)}") from None


def build_base(client: docker.DockerClient, tag: str, force: bool = False, mirror: str = DEBIAN_MIRROR) -> bool:
    """Build the base image from `sandboxes/base` with debootstrap and `docker import`;
    False when it was already there."""
    if not force:
        try:
            client.images.get(tag)
            return False
        except ImageNotFound:
            pass
    recipe = RECIPE / "packages.txt"
    if not recipe.is_file():
        raise SandboxUnavailable(f"{recipe} is missing: build the base image from a checkout of harness-evo")
    BUILD_LOG.write_text("")
    debootstrap = ensure_debootstrap()
    packages = [line.strip() for line in recipe.read_text().splitlines() if line.strip() and not line.startswith("#")]
    with tempfile.TemporaryDirectory(prefix="harness-evo-base-", dir="/var/tmp") as work:
        rootfs, tarball = Path(work) / "rootfs", Path(work) / "rootfs.tar"
        try:
            run_logged(
                [debootstrap, "--variant=minbase", f"--include={','.join(packages)}", "bookworm", str(rootfs), mirror]
            )
        finally:
            unmount_below(rootfs)
        for leftover in [*rootfs.glob("var/cache/apt/archives/*.deb"), *rootfs.glob("var/lib/apt/lists/*")]:
            if leftover.is_dir() and not leftover.is_symlink():
                shutil.rmtree(leftover)
            else:
                leftover.unlink()
        if Path(CA_BUNDLE).is_file():
            shutil.copyfile(CA_BUNDLE, rootfs / CA_BUNDLE.lstrip("/"))
        run_logged(["tar", "-C", str(rootfs), "-c", "-f", str(tarball), "."])
        repository, version = parse_repository_tag(tag)
        result = client.api.import_image(
            src=str(tarball), repository=repository, tag=version or "latest", changes=list(BASE_CHANGES)
        )
    if '"error' in result:
        raise SandboxUnavailable(f"docker import of {tag} failed: {result.strip().splitlines()[-1][:300]}")
    log.info("built %s", tag)
    return True


def ensure_debootstrap() -> str:
    """The path of debootstrap, installed with apt-get when missing and we are root."""
    if os.geteuid() != 0:
        raise SandboxUnavailable(
            "building the base image needs root (debootstrap): run `sudo harness-evo sandbox build-base`"
        )
    if found := shutil.which("debootstrap"):
        return found
    log.info("installing debootstrap with apt-get")
    for command in (["apt-get", "update"], ["apt-get", "install", "-y", "debootstrap"]):
        run_logged(command)
    return shutil.which("debootstrap") or "/usr/sbin/debootstrap"


def run_logged(command: list[str]) -> None:
    """Run a build step with its output appended to BUILD_LOG; a failure names the step and the log's last line."""
    with BUILD_LOG.open("a") as output:
        output.write(f"$ {' '.join(command)}\n")
        output.flush()
        returncode = subprocess.run(
            command,
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        ).returncode
    if returncode != 0:
        last = BUILD_LOG.read_text(errors="replace").strip().splitlines()[-1:] or [""]
        raise SandboxUnavailable(
            f"`{command[0]}` failed (exit code {returncode}): {last[0][:200]}; full log in {BUILD_LOG}"
        )


def unmount_below(folder: Path) -> None:
    """Detach any file system debootstrap left mounted inside `folder` (it mounts /proc and /sys while installing)."""
    mounts = [line.split()[1] for line in Path("/proc/self/mounts").read_text().splitlines()]
    for mount in sorted((m for m in mounts if m.startswith(f"{folder}/")), key=len, reverse=True):
        subprocess.run(["umount", "-l", mount], check=False)


def _reason(error: Exception) -> str:
    """The engine's own explanation of a failed build request (its quoted message), else the error's first line."""
    quoted = re.search(r'\("(.+)"\)\s*$', str(error))
    return quoted[1] if quoted else str(error).splitlines()[0]
