"""Model servers we start: the vLLM launcher against a stand-in `vllm` on PATH,
and servers (llama.cpp too) never outliving us."""

import os
import select
import signal
import socket
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness_evo.config import ModelsConfig, RoleModel, VllmConfig
from harness_evo.llm import LLM, ModelError, ModelUnavailable, vllm
from harness_evo.llm import process as servers
from harness_evo.store.run import RunStore

STAND_IN = '''\
"""A stand-in for `vllm serve`: the same OpenAI-compatible endpoints, no GPU."""
import argparse, json, os, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("command")
parser.add_argument("model")
for option in ("--host", "--port", "--gpu-memory-utilization", "--tensor-parallel-size", "--max-model-len"):
    parser.add_argument(option)
args = parser.parse_args()
print("INFO vllm serve", " ".join(sys.argv[2:]), flush=True)
if os.environ.get("STAND_IN_FAIL"):
    print("ERROR torch.OutOfMemoryError: CUDA out of memory", flush=True)
    sys.exit(1)
unready = int(os.environ.get("STAND_IN_UNREADY", "0"))
busy = int(os.environ.get("STAND_IN_BUSY", "0"))


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        global unready
        if self.path == "/health":
            unready -= 1
            return self.answer(503 if unready >= 0 else 200, {})
        if self.path == "/v1/models":
            return self.answer(200, {"object": "list", "data": [{"id": args.model, "object": "model"}]})
        self.answer(404, {})

    def do_POST(self):
        global busy
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if body["model"] != args.model:
            return self.answer(404, {"error": {"message": f"The model `{body['model']}` does not exist.", "code": 404}})
        busy -= 1
        if busy >= 0:
            return self.answer(503, {"error": {"message": "server busy", "code": 503}})
        if len(json.dumps(body["messages"])) > 2000:
            return self.answer(400, {"error": {
                "message": "This model's maximum context length is 512 tokens. "
                "Please reduce the length of the messages.",
                "type": "invalid_request_error", "code": "context_length_exceeded",
            }})
        text = body["model"] + " heard: " + body["messages"][-1]["content"]
        self.answer(200, {
            "id": "chat-1", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
        })

    def answer(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *values):
        print("INFO", format % values, flush=True)


ThreadingHTTPServer((args.host, int(args.port)), Handler).serve_forever()
'''

CHILD = textwrap.dedent("""\
    import sys
    import time
    from harness_evo.config import EmbeddedConfig, ModelsConfig, RoleModel
    from harness_evo.llm import LLM

    models = ModelsConfig(
        solver=RoleModel(model=sys.argv[1], max_tokens=8), embedded=EmbeddedConfig(server=sys.argv[2])
    )
    llm = LLM(models, cache=False)
    llm.complete("solver", [{"role": "user", "content": "hi"}])
    server = llm.endpoint(llm.models.solver).server
    print(server.process.pid, server.port, flush=True)
    while True:  # a signal the kernel hands to another thread runs its handler at the main thread's next wake-up
        time.sleep(0.2)
""")


@pytest.fixture(autouse=True)
def stand_in_vllm(tmp_path, monkeypatch, user_cache):
    """`vllm` on PATH is the stand-in; the user cache folder is the test's own."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "vllm"
    script.write_text(f"#!{sys.executable}\n{STAND_IN}")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


def gone(pid: int, timeout_s: float = 30.0) -> bool:
    """Waits (on a pidfd, not a sleep) until process `pid` has exited; False if it still runs after the timeout."""
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        ready, _, _ = select.select([handle], [], [], timeout_s)
        return bool(ready)
    finally:
        os.close(handle)


def refuses(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


def test_the_launcher_waits_for_health_and_the_server_answers_chat(monkeypatch):
    monkeypatch.setenv("STAND_IN_UNREADY", "3")
    server = vllm.start("org/coder-7b", VllmConfig(max_model_len=4096))
    try:
        log = server.log.read_text()
        assert log.count('"GET /health HTTP/1.1" 503') == 3 and '"GET /health HTTP/1.1" 200' in log
        assert "--max-model-len 4096" in log and f"--port {server.port}" in log
        assert [record["url"] for record in servers.running_servers()] == [server.url]
    finally:
        server.stop()
    assert gone(server.process.pid) and refuses(server.port)
    assert servers.running_servers() == []


def test_a_failed_start_shows_the_tail_of_its_log(monkeypatch):
    monkeypatch.setenv("STAND_IN_FAIL", "1")
    with pytest.raises(ModelUnavailable, match="CUDA out of memory") as failure:
        vllm.start("org/too-big", VllmConfig())
    assert "exited with status 1 while starting" in str(failure.value)


def test_without_vllm_installed_the_error_says_which_extra_to_install(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(ModelError, match=r"harness-evo\[vllm\]"):
        vllm.start("org/coder-7b", VllmConfig())


def test_a_vllm_role_starts_its_server_and_stops_it_on_close(tmp_path):
    store = RunStore.create(tmp_path / "runs", "eval")
    with LLM(ModelsConfig(solver=RoleModel(model="vllm/org/coder-7b")), store=store) as llm:
        first = llm.complete("solver", [{"role": "user", "content": "ping"}])
        second = llm.complete("solver", [{"role": "user", "content": "ping"}])
        server = llm.endpoint(llm.models.solver).server
        requests = server.log.read_text().count("POST /v1/chat/completions")
    assert first.text == "org/coder-7b heard: ping" and first.tokens_in == 5 and first.tokens_out == 3
    assert second.cached and second.text == first.text
    assert requests == 1
    assert gone(server.process.pid) and refuses(server.port)
    assert [call["cache_hit"] for call in store.rows("llm_calls", order_by="ts")] == [0, 1]


def test_one_server_per_model_serves_every_role_and_thread_until_its_last_user_closes():
    role = RoleModel(model="vllm/org/coder-7b")
    config = ModelsConfig(solver=role, critic=role)
    first, second = LLM(config, cache=False), LLM(config, cache=False)
    calls = [(first, "solver"), (first, "critic"), (second, "solver"), (second, "critic")]
    with ThreadPoolExecutor(4) as pool:
        replies = list(
            pool.map(lambda call: call[0].complete(call[1], [{"role": "user", "content": call[1]}]).text, calls)
        )
    server = first.endpoint(role).server
    assert second.endpoint(role).server is server
    first.close()
    still_serving = server.alive
    second.close()
    assert replies == ["org/coder-7b heard: solver", "org/coder-7b heard: critic"] * 2
    assert still_serving and gone(server.process.pid)
    assert [record["pid"] for record in servers.running_servers()] == []


def test_a_server_that_died_fails_one_call_is_started_again_for_the_next_and_its_log_stays_a_day():
    with LLM(ModelsConfig(solver=RoleModel(model="vllm/org/coder-7b")), cache=False) as llm:
        llm.complete("solver", [{"role": "user", "content": "one"}])
        crashed = llm.endpoint(llm.models.solver).server
        crashed.process.kill()
        crashed.process.wait()
        with pytest.raises(ModelUnavailable, match="its server died"):
            llm.complete("solver", [{"role": "user", "content": "two"}])
        after = llm.complete("solver", [{"role": "user", "content": "three"}])
        restarted = llm.endpoint(llm.models.solver).server
        assert crashed.log.is_file() and restarted.log != crashed.log, "a crashed server's log is kept to be read"
        servers.remove_old_logs(now=time.time() + servers.LOG_KEPT_S / 2)
        assert crashed.log.is_file()
        servers.remove_old_logs(now=time.time() + servers.LOG_KEPT_S * 2)
        assert not crashed.log.exists() and restarted.log.is_file(), (
            "a day later the crashed server's log goes, a live one's stays"
        )
    assert after.text == "org/coder-7b heard: three"
    assert restarted is not crashed and gone(restarted.process.pid)
    assert not restarted.log.exists(), "a server that stopped cleanly takes its log with it"


def test_http_failures_become_retries_or_one_line_errors(monkeypatch):
    monkeypatch.setenv("STAND_IN_BUSY", "1")
    server = vllm.start("org/coder-7b", VllmConfig())
    base = {"api_base": f"{server.url}/v1"}
    try:
        retrying = ModelsConfig(solver=RoleModel(model="vllm/org/coder-7b", params=base), backoff_s=0.0)
        with LLM(retrying, cache=False) as llm:
            after_busy = llm.complete("solver", [{"role": "user", "content": "ping"}])
            with pytest.raises(ModelError, match="context window"):
                llm.complete("solver", [{"role": "user", "content": "x" * 3000}])
        with LLM(ModelsConfig(solver=RoleModel(model="vllm/org/other", params=base)), cache=False) as llm:
            with pytest.raises(ModelError, match="unknown model"):
                llm.complete("solver", [{"role": "user", "content": "ping"}])
        posts = server.log.read_text().count("POST /v1/chat/completions")
    finally:
        server.stop()
    assert after_busy.text == "org/coder-7b heard: ping"
    assert posts == 4  # busy, answered, too long, unknown model: no retries but ours


def test_the_models_command_shows_roles_embedded_models_and_running_servers(cli):
    server = vllm.start("org/coder-7b", VllmConfig())
    try:
        shown = cli("models", env={"COLUMNS": "200"})
    finally:
        server.stop()
    assert shown.exit_code == 0, shown.output
    assert "solver" in shown.output and "local/qwen2.5-coder-1.5b" in shown.output
    assert "local/qwen2.5-coder-0.5b" in shown.output and "installed" in shown.output
    assert "vllm/org/coder-7b" in shown.output and server.url in shown.output


@pytest.mark.slow
@pytest.mark.parametrize(
    "model, server, signum",
    [
        ("vllm/org/coder-7b", "auto", signal.SIGINT),
        ("vllm/org/coder-7b", "auto", signal.SIGTERM),
        ("vllm/org/coder-7b", "auto", signal.SIGKILL),
        *(
            pytest.param("local/qwen2.5-coder-0.5b", server, signum, marks=pytest.mark.embedded)
            for server in ("llama-server", "llama-cpp-python")
            for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL)
        ),
    ],
)
def test_the_server_dies_with_the_process_that_started_it(model, server, signum, monkeypatch):
    if model.startswith("local/"):
        monkeypatch.delenv("HARNESS_EVO_CACHE")  # the GGUF assembled once in the user cache, not a copy per test
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, model, server], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        pid, port = map(int, child.stdout.readline().split())
        child.send_signal(signum)
        child.wait(timeout=30)
    finally:
        child.kill()
    assert gone(pid, timeout_s=60), f"the server outlived its parent after {signum.name}"
    assert refuses(port)


@pytest.mark.slow
def test_serve_vllm_prints_where_the_server_runs_and_stops_on_ctrl_c():
    command = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "harness_evo.cli",
            "serve",
            "vllm",
            "--model",
            "org/coder-7b",
            "--max-model-len",
            "2048",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = []
        while not (lines and lines[-1].startswith("Ctrl-C")):
            lines.append(command.stdout.readline())
        [base_url] = [line.split(": ", 1)[1].strip() for line in lines if line.startswith("base URL")]
        [server] = servers.running_servers()
        command.send_signal(signal.SIGINT)
        out, err = command.communicate(timeout=30)
    finally:
        command.kill()
    assert "model: vllm/org/coder-7b\n" in lines
    assert base_url == f"{server['url']}/v1"
    assert command.returncode == 0 and "vLLM stopped" in out
    assert gone(server["pid"])
