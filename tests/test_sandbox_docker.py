"""The Docker sandbox on the real engine: limits, timeouts, output, files, cleanup on every path out, images."""

import logging
import os
import secrets
import signal
import threading
import time
from pathlib import Path

import docker
import pytest
from docker.errors import NotFound

from harness_evo.config import SandboxConfig
from harness_evo.errors import InfraError
from harness_evo.sandbox import get_backend
from harness_evo.sandbox.docker import DockerBackend
from harness_evo.sandbox.images import LABEL, resolve_dockerfile
from harness_evo.sandbox.owner import Owner
from harness_evo.taskset import Task

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def client() -> docker.DockerClient:
    return docker.from_env()


@pytest.fixture(scope="module")
def backend(client) -> DockerBackend:
    return DockerBackend(SandboxConfig(), client=client)


@pytest.fixture
def task(tmp_path: Path, make_task) -> Task:
    return make_task(tmp_path / "plain")


@pytest.fixture
def sandbox(backend, task):
    with backend.open(task) as sandbox:
        yield sandbox


def exists(client: docker.DockerClient, container_id: str) -> bool:
    try:
        client.containers.get(container_id)
    except NotFound:
        return False
    return True


def test_the_docker_backend_is_chosen_by_name():
    assert get_backend(SandboxConfig(backend="docker")).name == "docker"


def test_a_command_runs_with_bash_in_the_working_directory_of_the_image(sandbox):
    result = sandbox.run("pwd; echo $0; exit 3", timeout_s=10)
    assert result.output.split() == ["/app", "bash"]
    assert (result.exit_code, result.timed_out) == (3, False)


def test_each_command_gets_a_fresh_shell_but_files_persist(sandbox):
    sandbox.run("cd /tmp; export GREETING=hi; echo kept > note.txt", timeout_s=10)
    result = sandbox.run("pwd; echo ${GREETING:-unset}; cat /tmp/note.txt", timeout_s=10)
    assert result.output.split() == ["/app", "unset", "kept"]


def test_stdout_and_stderr_are_interleaved_in_order(sandbox):
    result = sandbox.run("echo one; echo two >&2; echo three; echo four >&2", timeout_s=10)
    assert result.output == "one\ntwo\nthree\nfour\n"


def test_a_command_that_sleeps_past_its_timeout_is_killed_with_its_children(sandbox):
    result = sandbox.run("sleep 300 & sleep 300; echo woke", timeout_s=1)
    assert result.timed_out and result.exit_code == 137
    assert "woke" not in result.output
    assert 1 <= result.duration_s < 300
    assert "sleep 300" not in sandbox.run("ps -eo args", timeout_s=10).output


def test_a_failing_command_is_not_reported_as_timed_out(sandbox):
    result = sandbox.run("kill -9 $$", timeout_s=30)
    assert (result.exit_code, result.timed_out) == (137, False)
    assert "out of memory" not in result.output


def test_a_memory_hog_is_killed_and_the_sandbox_lives_on(backend, tmp_path, make_task):
    task = make_task(tmp_path / "hog", environment="memory_mb = 128")
    with backend.open(task) as sandbox:
        result = sandbox.run("python3 -c 'x = bytearray(2 * 1024 ** 3); print(\"allocated\")'", timeout_s=60)
        assert result.exit_code == 137 and not result.timed_out
        assert "allocated" not in result.output
        assert "out of memory (the sandbox has 128 MB)" in result.output
        assert sandbox.run("echo alive", timeout_s=10).output == "alive\n"


def test_there_is_no_network_unless_the_task_asks_for_it(backend, tmp_path, make_task):
    probe = (
        "ls /sys/class/net; python3 -c 'import socket; socket.create_connection((\"192.0.2.1\", 80), timeout=2)' "
        "2>&1 | tail -n 1"
    )
    with backend.open(make_task(tmp_path / "offline")) as sandbox:
        offline = sandbox.run(probe, timeout_s=30).output.splitlines()
    with backend.open(make_task(tmp_path / "online", environment="allow_internet = true")) as sandbox:
        interfaces = sandbox.run("ls /sys/class/net", timeout_s=30).output.split()
    assert offline[0] == "lo" and "unreachable" in offline[1]
    assert "eth0" in interfaces


@pytest.mark.parametrize("memory", ["memory_mb = 300", 'memory = "300M"'])
def test_the_sandbox_has_the_configured_limits(client, backend, tmp_path, make_task, memory):
    task = make_task(tmp_path / "limits", environment=f"cpus = 0.5\n{memory}")
    with backend.open(task) as sandbox:
        host = client.api.inspect_container(sandbox.id)["HostConfig"]
    assert (host["NanoCpus"], host["Memory"], host["MemorySwap"]) == (500_000_000, 300 * 2**20, 300 * 2**20)
    assert (host["PidsLimit"], host["Init"], host["NetworkMode"]) == (256, True, "none")


def test_containers_carry_our_label_with_the_run_the_task_and_the_owner_process(client, task):
    with DockerBackend(SandboxConfig(), run_id="eval-1", client=client).open(task) as sandbox:
        labels = client.containers.get(sandbox.id).labels
    owner = Owner.current()
    assert labels == {LABEL: "1", f"{LABEL}.run": "eval-1", f"{LABEL}.task": "plain", f"{LABEL}.owner": owner.label()}
    assert owner.pid == os.getpid() and not owner.gone()


def test_long_output_keeps_its_head_and_tail_and_says_how_much_was_cut(client, task):
    with DockerBackend(SandboxConfig(max_output_chars=1000), client=client).open(task) as sandbox:
        result = sandbox.run("seq 1 100000", timeout_s=30)
    assert result.output.startswith("1\n2\n3\n") and result.output.endswith("99999\n100000\n")
    assert "characters of output cut" in result.output
    assert len(result.output) < 1100


def test_files_are_written_copied_and_read_at_absolute_paths(sandbox, tmp_path):
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "sub" / "data.txt").write_text("nested\n")
    sandbox.write_files({"/opt/harness/tools/hello/run.sh": "#!/bin/sh\necho hello from a tool\n"}, executable=True)
    sandbox.write_files({"/tmp/plain.txt": "plain"})
    sandbox.copy_dir(tree, "/srv/copied")
    result = sandbox.run("/opt/harness/tools/hello/run.sh; cat /srv/copied/sub/data.txt; stat -c %a /tmp", timeout_s=10)
    assert result.output == "hello from a tool\nnested\n1777\n"
    assert sandbox.read_file("/tmp/plain.txt") == "plain"
    assert sandbox.read_file("/tmp/missing.txt") is None


def test_a_file_written_by_a_command_is_read_back(sandbox):
    sandbox.run(
        "mkdir -p /logs/verifier && echo 0.5 > /logs/verifier/reward.txt && ln -s reward.txt /logs/verifier/link",
        timeout_s=10,
    )
    assert sandbox.read_file("/logs/verifier/reward.txt") == "0.5\n"
    assert sandbox.read_file("/logs/verifier/link") == "0.5\n"


def test_the_container_is_gone_after_close_and_close_can_be_repeated(client, backend, task):
    sandbox = backend.open(task)
    sandbox.close()
    sandbox.close()
    assert not exists(client, sandbox.id)


def test_the_container_is_gone_after_an_exception_inside_with(client, backend, task):
    with pytest.raises(RuntimeError), backend.open(task) as sandbox:
        raise RuntimeError("the agent crashed")
    assert not exists(client, sandbox.id)


def test_the_container_is_gone_after_ctrl_c_during_a_command(client, backend, task):
    ctrl_c = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    with pytest.raises(KeyboardInterrupt), backend.open(task) as sandbox:
        ctrl_c.start()
        sandbox.run("sleep 60", timeout_s=120)
    ctrl_c.join()
    assert not exists(client, sandbox.id)


def test_a_container_killed_from_outside_makes_run_raise_infra_error(client, sandbox):
    client.containers.get(sandbox.id).kill()
    with pytest.raises(InfraError, match="died"):
        sandbox.run("echo hi", timeout_s=10)


def test_a_container_killed_during_a_command_makes_run_raise_infra_error(client, sandbox):
    killer = threading.Timer(1.0, client.api.kill, (sandbox.id,))
    killer.start()
    with pytest.raises(InfraError, match="died|gone|failed"):
        sandbox.run("sleep 60", timeout_s=120)
    killer.join()


def test_prune_removes_a_leftover_labelled_container(client, cli):
    run_id = f"crashed-{secrets.token_hex(4)}"
    leftover = client.containers.run(
        "harness-evo/base:latest",
        ["sleep", "infinity"],
        detach=True,
        network_mode="none",
        labels={LABEL: "1", f"{LABEL}.run": run_id},
    )
    result = cli("sandbox", "prune", "--run", run_id)
    assert (result.exit_code, result.output) == (0, "removed 1 container\n")
    assert not exists(client, leftover.id)


def test_prune_without_a_run_keeps_the_containers_of_a_run_still_going_here(client, cli):
    def container(owner: Owner) -> str:
        return client.containers.run(
            "harness-evo/base:latest",
            ["sleep", "infinity"],
            detach=True,
            network_mode="none",
            labels={LABEL: "1", f"{LABEL}.owner": owner.label()},
        ).id

    gone = container(Owner.current().model_copy(update={"started": "1"}))  # this pid, but a start time it never had
    going = container(Owner.current())
    try:
        result = cli("sandbox", "prune")
        assert result.exit_code == 0 and result.output.startswith("removed ")
        assert not exists(client, gone) and exists(client, going), "another run's sandboxes are not leftovers"
    finally:
        client.api.remove_container(going, force=True)


@pytest.fixture
def fresh_task(client, tmp_path, make_task):
    """A task whose build context no earlier test run has seen; its images are removed afterwards."""
    task = make_task(
        tmp_path / f"build-{secrets.token_hex(3)}",
        dockerfile="FROM python:3.13-slim-bookworm\nWORKDIR /app\nCOPY data.txt /app/\n",
        files={"data.txt": secrets.token_hex(8)},
    )
    yield task
    for image in client.images.list(filters={"label": f"{LABEL}.task={task.id}"}):
        client.images.remove(image.id, force=True)


def builds(caplog) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.getMessage().startswith("building the image")]


def test_a_task_image_is_built_once_and_then_reused(client, fresh_task, caplog):
    caplog.set_level(logging.INFO, logger="harness_evo.sandbox")
    DockerBackend(SandboxConfig(), client=client).prepare(fresh_task)
    again = DockerBackend(SandboxConfig(), client=client)
    again.prepare(fresh_task)
    with again.open(fresh_task) as sandbox:
        listing = sandbox.run("pwd; ls", timeout_s=10).output.split()
    assert len(builds(caplog)) == 1
    assert listing == ["/app", "data.txt"]


def test_a_changed_build_context_builds_a_new_image(client, fresh_task, backend, caplog):
    caplog.set_level(logging.INFO, logger="harness_evo.sandbox")
    backend.prepare(fresh_task)
    (fresh_task.environment_dir / "data.txt").write_text("changed")
    backend.prepare(fresh_task)
    with backend.open(fresh_task) as sandbox:
        assert sandbox.run("cat data.txt", timeout_s=10).output == "changed"
    assert len(builds(caplog)) == 2


def test_concurrent_prepares_of_one_task_build_it_once(client, fresh_task, caplog):
    caplog.set_level(logging.INFO, logger="harness_evo.sandbox")
    workers = [
        threading.Thread(target=DockerBackend(SandboxConfig(), client=client).prepare, args=(fresh_task,))
        for _ in range(3)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(builds(caplog)) == 1


def test_a_failed_build_names_the_task_and_the_end_of_its_log(backend, tmp_path, make_task):
    task = make_task(tmp_path / "broken", dockerfile="FROM debian:bookworm-slim\nRUN echo about to fail && false\n")
    with pytest.raises(InfraError) as failure:
        backend.prepare(task)
    assert "broken: image build failed" in str(failure.value)
    assert "about to fail" in str(failure.value)


def test_from_inside_a_heredoc_or_a_continued_line_is_no_from_line(backend, tmp_path, make_task):
    heredoc = "RUN <<EOF\ncat > /app/formula.py <<'PY'\nfrom fractions import Fraction\nPY\nEOF\n"
    continued = "RUN echo first \\\n  from the next line > /app/said.txt\n"
    resolved, bases = resolve_dockerfile(
        f"FROM python:3.11-slim-bookworm AS build\n{heredoc}{continued}FROM build\n", SandboxConfig()
    )
    assert bases == ["harness-evo/base:latest"]
    assert heredoc in resolved and continued in resolved and resolved.endswith("FROM build\n")

    task = make_task(tmp_path / "continued", dockerfile=f"FROM python:3.11-slim-bookworm\nWORKDIR /app\n{continued}")
    backend.prepare(task)
    with backend.open(task) as sandbox:
        assert sandbox.run("cat /app/said.txt", timeout_s=30).output.split() == ["first", "from", "the", "next", "line"]
    task = make_task(tmp_path / "heredoc", dockerfile=f"FROM python:3.11-slim-bookworm\nWORKDIR /app\n{heredoc}")
    with pytest.raises(InfraError) as failure:  # this engine's classic builder has no heredocs
        backend.prepare(task)
    assert "heredocs (RUN <<EOF), which need BuildKit" in str(failure.value) and "\n" not in str(failure.value)


def test_an_unknown_image_that_is_not_on_this_machine_fails_the_task_in_one_line(backend, tmp_path, make_task):
    task = make_task(tmp_path / "exotic", dockerfile="FROM registry.example.com/exotic:1.0\n")
    with pytest.raises(InfraError) as failure:
        backend.prepare(task)
    message = str(failure.value)
    assert message.startswith("exotic: FROM registry.example.com/exotic:1.0 is not an image on this machine")
    assert "image_aliases" in message and "\n" not in message


def test_build_base_leaves_a_present_base_image_alone(cli):
    result = cli("sandbox", "build-base")
    assert result.exit_code == 0
    assert "harness-evo/base:latest is already there" in result.output


def test_a_frozen_container_cannot_hang_a_command_past_its_timeout(client, sandbox):
    freezer = threading.Timer(0.5, client.api.pause, (sandbox.id,))
    freezer.start()
    started = time.monotonic()
    result = sandbox.run("sleep 300", timeout_s=1)
    freezer.join()
    assert result.timed_out and result.exit_code == -1
    assert "still running" in result.output
    assert time.monotonic() - started < 300, "the command ran to its end"
