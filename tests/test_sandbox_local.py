"""The local sandbox: a temporary folder, under bubblewrap when it is installed, else a plain subprocess."""

import logging
import shutil
import threading
import time
from pathlib import Path

import pytest

from harness_evo.config import SandboxConfig
from harness_evo.errors import InfraError
from harness_evo.sandbox import get_backend
from harness_evo.sandbox.local import LocalBackend
from harness_evo.taskset import Task

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


@pytest.fixture
def task(tmp_path: Path, make_task) -> Task:
    """A task whose image would work in /app and holds one data file."""
    return make_task(
        tmp_path / "task",
        "FROM python:3.13-slim\nWORKDIR /srv\nWORKDIR app\nCOPY data.txt .\n",
        files={"data.txt": "environment file\n"},
    )


@pytest.fixture(params=[pytest.param(True, marks=needs_bwrap, id="bwrap"), pytest.param(False, id="plain")])
def sandbox(request, task):
    with LocalBackend(SandboxConfig(backend="local"), use_bwrap=request.param).open(task) as sandbox:
        yield sandbox


@pytest.fixture
def jailed(task):
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    with LocalBackend(SandboxConfig(backend="local")).open(task) as sandbox:
        yield sandbox


def test_the_local_backend_is_chosen_by_name():
    assert get_backend(SandboxConfig(backend="local")).name == "local"


def test_a_command_runs_in_a_temporary_folder_holding_the_environment_files(sandbox):
    result = sandbox.run("cat data.txt; echo oops >&2; exit 4", timeout_s=10)
    assert (result.output, result.exit_code, result.timed_out) == ("environment file\noops\n", 4, False)
    assert sandbox.folder.name.startswith("harness-evo-task-")


def test_a_command_past_its_timeout_is_killed(sandbox):
    result = sandbox.run("sleep 300; echo woke", timeout_s=1)
    assert result.timed_out and result.exit_code == 137
    assert "woke" not in result.output
    assert result.duration_s < 300


def test_long_output_is_capped(task):
    backend = LocalBackend(SandboxConfig(backend="local", max_output_chars=1000), use_bwrap=False)
    with backend.open(task) as sandbox:
        result = sandbox.run("seq 1 100000", timeout_s=30)
    assert result.output.startswith("1\n2\n") and result.output.endswith("100000\n")
    assert "characters of output cut" in result.output and len(result.output) < 1100


def test_the_folder_is_removed_on_close_even_after_an_exception(task):
    with pytest.raises(RuntimeError), LocalBackend(SandboxConfig(backend="local")).open(task) as sandbox:
        raise RuntimeError("the agent crashed")
    sandbox.close()
    assert not sandbox.folder.exists()


def test_without_bubblewrap_a_warning_says_it_isolates_nothing(caplog):
    with caplog.at_level(logging.WARNING, logger="harness_evo.sandbox"):
        LocalBackend(SandboxConfig(backend="local"), use_bwrap=False)
    assert "isolates nothing" in caplog.text


def test_under_bubblewrap_the_working_folder_is_the_dockerfiles_and_sandbox_paths_are_real(jailed, tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "check.sh").write_text("echo checked > /logs/verifier/reward.txt\n")
    jailed.copy_dir(tmp_path / "tests", "/tests")
    jailed.write_files({"/opt/harness/bin/hello": "#!/bin/sh\necho hello\n"}, executable=True)
    result = jailed.run("pwd; hello || /opt/harness/bin/hello; bash /tests/check.sh; ls /usr/bin/python3", timeout_s=10)
    assert result.output.split()[0] == "/srv/app"
    assert "hello" in result.output and "/usr/bin/python3" in result.output
    assert jailed.read_file("/logs/verifier/reward.txt") == "checked\n"


def test_under_bubblewrap_there_is_no_network_and_the_host_is_read_only(jailed):
    interfaces = jailed.run("tail -n +3 /proc/net/dev | cut -d: -f1", timeout_s=10).output.split()
    write = jailed.run("touch /usr/harness-evo-was-here", timeout_s=10)
    assert interfaces == ["lo"]
    assert write.exit_code != 0 and "Read-only file system" in write.output
    assert not Path("/usr/harness-evo-was-here").exists()


def test_under_bubblewrap_files_and_tmp_persist_between_commands_but_processes_do_not(jailed):
    jailed.run("echo kept > /tmp/note; echo here > notes.txt; (sleep 300 &)", timeout_s=10)
    result = jailed.run("cat /tmp/note notes.txt; ps -eo args | grep -c '[s]leep 300'", timeout_s=10)
    assert result.output.split() == ["kept", "here", "0"]


def test_closing_the_sandbox_from_another_thread_ends_its_running_command(sandbox):
    closer = threading.Timer(1.0, sandbox.close)
    closer.start()
    started = time.monotonic()
    with pytest.raises(InfraError, match="closed"):
        sandbox.run("sleep 300", timeout_s=600)
    closer.join()
    assert time.monotonic() - started < 300, "the command ran to its end"
    assert not sandbox.folder.exists()
