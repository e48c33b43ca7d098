"""What a container may not do or outlive, on the real engine: it never runs privileged, never sees the Docker socket
or the host's environment, has no network unless its task asks; it stops by itself when the run that made it is killed
with `kill -9`, and the next run removes it."""

import json
import os
import re
import secrets
import signal
import subprocess
import sys
from pathlib import Path

import docker
import pytest
from docker.errors import NotFound

from harness_evo.config import SandboxConfig
from harness_evo.sandbox.docker import DockerBackend
from harness_evo.sandbox.images import LABEL

pytestmark = pytest.mark.docker

ROOT = Path(__file__).parents[1]
CAP_SYS_ADMIN = 21
"""The capability bit a privileged container has and a default one has not."""
SECRET = f"sk-fake-{secrets.token_hex(12)}"
"""An API key of the test's environment, which no container may see."""


@pytest.fixture(scope="module")
def client() -> docker.DockerClient:
    return docker.from_env()


@pytest.fixture
def backend(client, monkeypatch) -> DockerBackend:
    """A backend made while this process has API keys in its environment."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    return DockerBackend(SandboxConfig(), client=client)


@pytest.mark.parametrize("internet", [False, True])
def test_a_container_is_unprivileged_without_the_socket_or_the_host_environment_and_offline_unless_asked(
        client, backend, tmp_path, make_task, internet):
    task = make_task(tmp_path / "task", environment=f"allow_internet = {str(internet).lower()}")
    with backend.open(task) as sandbox:
        config = client.api.inspect_container(sandbox.id)
        inside = sandbox.run("env; cat /proc/1/environ; ls -l /var/run/docker.sock /run/docker.sock; "
                             "grep -c docker.sock /proc/mounts; cat /proc/self/status | grep CapEff", timeout_s=10).output
    host = config["HostConfig"]
    assert host["Privileged"] is False and not host.get("CapAdd") and not host.get("Devices")
    assert not host.get("Binds") and not config["Mounts"], "nothing of the host is mounted, the Docker socket least of all"
    assert "No such file or directory" in inside and "\n0\n" in inside
    assert not int(re.search(r"CapEff:\s*([0-9a-f]+)", inside).group(1), 16) & 1 << CAP_SYS_ADMIN
    assert SECRET not in json.dumps(config) and SECRET not in inside
    assert not set(config["Config"]["Env"]) & {f"{name}={value}" for name, value in os.environ.items()} - image_env(client, config)
    assert host["NetworkMode"] == ("bridge" if internet else "none")


def image_env(client: docker.DockerClient, config: dict) -> set[str]:
    """The environment the container's image sets (PATH and the like), which the host may happen to share."""
    return set(client.api.inspect_image(config["Image"])["Config"]["Env"] or [])


def test_a_container_s_main_process_is_bounded_by_its_task_s_time_limits(client, backend, tmp_path, make_task):
    task = make_task(tmp_path / "task")
    with backend.open(task) as sandbox:
        command = client.api.inspect_container(sandbox.id)["Config"]["Cmd"]
    assert command == ["sleep", str(int(task.agent_timeout_s + task.verifier_timeout_s + SandboxConfig().lifetime_margin_s))]


OWNER = """
import sys
from pathlib import Path
from harness_evo.config import SandboxConfig
from harness_evo.sandbox.docker import DockerBackend
from harness_evo.taskset import load_task

backend = DockerBackend(SandboxConfig(lifetime_margin_s=float(sys.argv[2])), run_id="killed-" + sys.argv[3])
sandbox = backend.open(load_task(Path(sys.argv[1])))
print(sandbox.id, flush=True)
sys.stdin.readline()
"""
"""A run's process: opens a sandbox of the task folder argv[1] with a lifetime margin of argv[2] s, says its id, waits."""


def test_a_container_of_a_run_killed_with_sigkill_stops_by_itself_and_the_next_run_removes_it(client, tmp_path, make_task):
    task = make_task(tmp_path / f"short-{secrets.token_hex(3)}")
    (task.folder / "task.toml").write_text("[agent]\ntimeout_sec = 2\n[verifier]\ntimeout_sec = 1\n")
    run = subprocess.Popen([sys.executable, "-c", OWNER, str(task.folder), "2", secrets.token_hex(4)], cwd=ROOT,
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        container = client.containers.get(run.stdout.readline().strip())
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait()
    ours = DockerBackend(SandboxConfig(), client=client).open(task)  # a container of a live process: kept
    try:
        lifetime = 2 + 1 + 2  # agent, verifier, margin
        assert container.wait(timeout=lifetime + 10)["StatusCode"] == 0, "its main process ended by itself, in its lifetime"
        DockerBackend(SandboxConfig(), run_id=f"next-{secrets.token_hex(4)}", client=client)
        with pytest.raises(NotFound):
            container.reload()
        client.containers.get(ours.id)
    finally:
        ours.close()
        for image in client.images.list(filters={"label": f"{LABEL}.task={task.id}"}):
            client.images.remove(image.id, force=True)

