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
import time
from pathlib import Path

import docker
import pytest
from docker.errors import NotFound

from harness_evo.config import RunConfig, SandboxConfig
from harness_evo.errors import InfraError
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
    client, backend, tmp_path, make_task, internet
):
    task = make_task(tmp_path / "task", environment=f"allow_internet = {str(internet).lower()}")
    with backend.open(task) as sandbox:
        config = client.api.inspect_container(sandbox.id)
        inside = sandbox.run(
            "env; cat /proc/1/environ; ls -l /var/run/docker.sock /run/docker.sock; "
            "grep -c docker.sock /proc/mounts; cat /proc/self/status | grep CapEff",
            timeout_s=10,
        ).output
    host = config["HostConfig"]
    assert host["Privileged"] is False and not host.get("CapAdd") and not host.get("Devices")
    assert not host.get("Binds") and not config["Mounts"], (
        "nothing of the host is mounted, the Docker socket least of all"
    )
    assert "No such file or directory" in inside and "\n0\n" in inside
    assert not int(re.search(r"CapEff:\s*([0-9a-f]+)", inside).group(1), 16) & 1 << CAP_SYS_ADMIN
    assert SECRET not in json.dumps(config) and SECRET not in inside
    assert not set(config["Config"]["Env"]) & {f"{name}={value}" for name, value in os.environ.items()} - image_env(
        client, config
    )
    assert host["NetworkMode"] == ("bridge" if internet else "none")


def image_env(client: docker.DockerClient, config: dict) -> set[str]:
    """The environment the container's image sets (PATH and the like), which the host may happen to share."""
    return set(client.api.inspect_image(config["Image"])["Config"]["Env"] or [])


def test_a_container_s_main_process_is_bounded_by_its_task_s_time_limits(client, backend, tmp_path, make_task):
    task = make_task(tmp_path / "task")
    with backend.open(task) as sandbox:
        command = client.api.inspect_container(sandbox.id)["Config"]["Cmd"]
    assert command == [
        "sleep",
        str(int(task.agent_timeout_s + task.verifier_timeout_s + SandboxConfig().lifetime_margin_s)),
    ]


def test_a_command_after_the_container_s_lifetime_says_the_container_stopped_at_its_end(client, tmp_path, make_task):
    task = make_task(tmp_path / "task")
    task = task.model_copy(update={"agent_timeout_s": 1.0, "verifier_timeout_s": 1.0})
    with DockerBackend(SandboxConfig(lifetime_margin_s=0), client=client).open(task) as sandbox:
        client.containers.get(sandbox.id).wait(timeout=30)
        with pytest.raises(InfraError, match=r"stopped by itself at the end of its lifetime .*lifetime_margin_s"):
            sandbox.run("true", timeout_s=10)


def harness_evo(*args) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "harness_evo.cli", *map(str, args)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_container_of_an_eval_killed_with_sigkill_stops_by_itself_and_the_next_run_removes_it(
    client, tmp_path, make_task
):
    """The oracle sleeps far past the task's 2 s limit;
    the eval is killed with SIGKILL the moment its container starts."""
    suite = tmp_path / "suite"
    task = make_task(suite / f"short-{secrets.token_hex(3)}")
    (task.folder / "task.toml").write_text("[agent]\ntimeout_sec = 2\n[verifier]\ntimeout_sec = 1\n")
    (task.folder / "solution").mkdir()
    (task.folder / "solution" / "solve.sh").write_text("sleep 300\n")
    (suite / "suite.toml").write_text(f'[splits]\ntrain = ["{task.id}"]\ndev = []\ntest = []\n')
    config = RunConfig(tasks=suite, split="train", agent="oracle", sandbox=SandboxConfig(lifetime_margin_s=2))
    config.save(tmp_path / "eval.toml")
    started = client.events(
        decode=True,
        until=time.time() + 300,  # a stream that ends: no test waits for ever
        filters={"type": "container", "event": "start", "label": f"{LABEL}.task={task.id}"},
    )
    ours = DockerBackend(SandboxConfig(), client=client).open(task)  # a container of a live process: kept
    try:
        killed = harness_evo("eval", "--config", tmp_path / "eval.toml", "--runs", tmp_path / "runs")
        container = client.containers.get(next(event for event in started if event["id"] != ours.id)["id"])
        killed.send_signal(signal.SIGKILL)
        killed.communicate()
        lifetime = 2 + 1 + 2  # agent, verifier, margin
        assert container.wait(timeout=lifetime + 10)["StatusCode"] == 0, (
            "its main process ended by itself, in its lifetime"
        )
        nothing = harness_evo(
            "eval", "--config", tmp_path / "eval.toml", "--agent", "noop", "--runs", tmp_path / "runs"
        )
        assert nothing.wait(timeout=120) == 0, nothing.stderr.read()
        with pytest.raises(NotFound):
            container.reload()
        client.containers.get(ours.id)
    finally:
        started.close()
        ours.close()
        for image in client.images.list(filters={"label": f"{LABEL}.task={task.id}"}):
            client.images.remove(image.id, force=True)
