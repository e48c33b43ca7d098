"""API keys in the environment and a hosted model name routed to a stub server on 127.0.0.1: the key goes to the model
server and nowhere else: not into the container, run.db, trajectories, the terminal, crash logs, exports or the
response cache, even when the server quotes the key back in its error message."""

import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness_evo import world
from harness_evo.config import RunConfig, SandboxConfig
from harness_evo.evolve import session
from harness_evo.redaction import redact
from harness_evo.sandbox.local import LocalBackend
from harness_evo.store import RunStore

ROOT = Path(__file__).parents[1]
HARNESS = ROOT / "harnesses" / "bash-agent"
GREETING = ROOT / "tests" / "fixtures" / "eval-tasks" / "greeting"
KEYS = {
    "OPENAI_API_KEY": f"sk-fake-{secrets.token_hex(16)}",
    "ANTHROPIC_API_KEY": f"sk-ant-fake-{secrets.token_hex(16)}",
}


def bash(command: str) -> str:
    return f"```bash\n{command}\n```"


def solver(messages: list[dict]) -> str:
    """Shows the sandbox's environment (its commands' and its main process's), then solves the greeting task."""
    if sum(message["role"] == "assistant" for message in messages) == 0:
        return bash("env; tr '\\0' '\\n' < /proc/1/environ")
    return bash("echo 'hello harness' > /app/greeting.txt && cat /app/greeting.txt && echo TASK_DONE")


def leaks(folder: Path, *texts: str) -> list[str]:
    """The files under `folder` (SQLite's journals included) and the `texts` that hold a key."""
    found = [
        str(path)
        for path in folder.rglob("*")
        if path.is_file() and any(key.encode() in path.read_bytes() for key in KEYS.values())
    ]
    return found + [text[:200] for text in texts if any(key in text for key in KEYS.values())]


def harness_evo(*args, cwd: Path) -> subprocess.CompletedProcess:
    """The command, with the keys and a cache folder of the test's own in its environment."""
    env = {**os.environ, "HARNESS_EVO_CACHE": str(cwd / "cache"), **KEYS}
    return subprocess.run(
        [sys.executable, "-m", "harness_evo.cli", *map(str, args)],
        cwd=ROOT,
        env=env,
        text=True,
        capture_output=True,
        timeout=300,
    )


def eval_config(tmp_path: Path, url: str) -> Path:
    """An eval of the greeting task by `openai/gpt-4o-mini`, routed to `url`."""
    suite = tmp_path / "suite"
    shutil.copytree(GREETING, suite / "greeting")
    (suite / "suite.toml").write_text('[splits]\ntrain = ["greeting"]\ndev = []\ntest = []\n')
    config = RunConfig(harness=HARNESS, tasks=suite, split="train")
    config.models.solver.model = "openai/gpt-4o-mini"
    config.models.solver.params = {"api_base": url}
    config.save(tmp_path / "eval.toml")
    return tmp_path / "eval.toml"


@pytest.mark.docker
def test_the_key_reaches_the_model_server_and_no_file_output_or_container(tmp_path: Path, openai_stub):
    with openai_stub(solver) as stub:
        config = eval_config(tmp_path, stub.url)
        evaluated = harness_evo("eval", "--config", config, "--runs", tmp_path / "runs", cwd=tmp_path)
    assert evaluated.returncode == 0, evaluated.stderr
    assert len(stub.keys) >= 2 and set(stub.keys) == {f"Bearer {KEYS['OPENAI_API_KEY']}"}, (
        "each reply was paid with the key"
    )
    assert list((tmp_path / "cache").glob("responses.sqlite*")), "the replies are in the response cache"
    run = next(folder for folder in (tmp_path / "runs").iterdir())
    exported = harness_evo(
        "export",
        run.name,
        "--out",
        tmp_path / "export",
        "--format",
        "mini-swe-agent",
        "--node",
        "best",
        "--runs",
        tmp_path / "runs",
        cwd=tmp_path,
    )
    assert exported.returncode == 0, exported.stderr
    [trajectory] = (run / "rollouts").iterdir()
    assert "HOME=" in trajectory.read_text(), "the sandbox's environment was shown to the model, and recorded"
    assert leaks(tmp_path, evaluated.stdout, evaluated.stderr, exported.stdout) == []


@pytest.mark.docker
def test_a_server_that_quotes_the_key_in_its_error_gets_it_out_of_the_error_line_and_the_run(
    tmp_path: Path, openai_stub
):
    with openai_stub(solver, status=401) as stub:
        evaluated = harness_evo(
            "eval", "--config", eval_config(tmp_path, stub.url), "--runs", tmp_path / "runs", cwd=tmp_path
        )
    assert stub.keys, "the model server was called"
    assert (
        evaluated.returncode == 2
        and "authentication failed" in evaluated.stderr
        and "[OPENAI_API_KEY]" in evaluated.stderr
    )
    assert "Traceback" not in evaluated.stderr
    [run] = (tmp_path / "runs").iterdir()
    store = RunStore(run)
    assert store.info.status == "failed" and "[OPENAI_API_KEY]" in store.rows("llm_calls")[0]["error"]
    assert leaks(tmp_path, evaluated.stdout, evaluated.stderr) == []


def test_a_crash_log_leaves_the_key_out(tmp_path: Path, cli, monkeypatch, user_cache):
    for name, key in KEYS.items():
        monkeypatch.setenv(name, key)

    def crash(store, callbacks):
        raise RuntimeError(f"the proxy said: Incorrect API key provided: Bearer {KEYS['OPENAI_API_KEY']}")

    monkeypatch.setattr(session, "run", crash)
    world.config().save(tmp_path / "evolve.toml")
    result = cli("evolve", "--config", tmp_path / "evolve.toml", "--runs", tmp_path / "runs")
    [run] = (tmp_path / "runs").iterdir()
    line = str(result.exception)  # the one line `main` prints
    assert "the traceback is in" in line and "Bearer [OPENAI_API_KEY]" in line
    assert "Bearer [OPENAI_API_KEY]" in (run / "crash.log").read_text()
    assert leaks(tmp_path, result.output, line) == []


@pytest.mark.parametrize("bubblewrap", [True, False])
def test_a_local_sandbox_s_commands_get_no_key(tmp_path: Path, make_task, monkeypatch, bubblewrap):
    for name, key in KEYS.items():
        monkeypatch.setenv(name, key)
    if bubblewrap and not shutil.which("bwrap"):
        pytest.skip("bubblewrap is not installed")
    with LocalBackend(SandboxConfig(), use_bwrap=bubblewrap).open(make_task(tmp_path / "task")) as sandbox:
        shown = sandbox.run("env", timeout_s=10).output
    assert "PATH=" in shown and leaks(tmp_path, shown) == []


def test_redaction_names_the_secret_s_variable_and_leaves_other_values_alone(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_abcdefgh12345")
    monkeypatch.setenv("PROXY_PASSWORD", "hf_abcdefgh12345-and-more")
    monkeypatch.setenv("DEBUG_KEY", "1")
    monkeypatch.setenv("WORK_DIR", "/home/someone/work")
    assert (
        redact("hf_abcdefgh12345-and-more then hf_abcdefgh12345 in /home/someone/work, 1 time")
        == "[PROXY_PASSWORD] then [HF_TOKEN] in /home/someone/work, 1 time"
    )
