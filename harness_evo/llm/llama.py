"""`local/<name>`: an embedded GGUF served on 127.0.0.1 by llama.cpp's own `llama-server` or by llama-cpp-python's
server.

One server per model per process, shared by all roles and worker threads, started on first use. llama-server holds
`embedded.slots` conversations at once, each with its own evaluated prompt; a call goes to the slot its thread had
last (see slots.py), so a rollout's next turn only evaluates what is new, and a worker's next rollout reuses the system
prompt's prefix. llama-cpp-python's server answers one call at a time and keeps only the last conversation's prompt.
"""

import importlib.util
import os
import shutil
import sys
import weakref
from pathlib import Path
from typing import Any

from harness_evo.config import EmbeddedConfig, ModelsConfig
from harness_evo.llm import embedded, process
from harness_evo.llm.endpoint import Endpoint, register_free
from harness_evo.llm.errors import ModelError, ModelUnavailable
from harness_evo.llm.slots import Slots

START_TIMEOUT_S = 180.0
SERVER_OVERHEAD_BYTES = 400 << 20
"""Memory llama-server takes beside the weights and the KV cache (compute buffers, the prompt cache's first entries)."""
_slots: weakref.WeakKeyDictionary[process.ServerProcess, Slots] = weakref.WeakKeyDictionary()
"""The slots of each running server; a server started again gets new ones."""


def default_threads() -> int:
    """All cores: on an otherwise idle 2-core machine 2 threads generate twice as fast as 1, even with two agents'
    sandboxes running their commands. On a machine busy with other work, set `models.threads` lower: llama.cpp's
    threads wait for each other at every step, so a core taken away slows it many times over."""
    return len(os.sched_getaffinity(0))


def llama_server_binary(config: EmbeddedConfig) -> Path | None:
    """The llama-server executable: the configured one, the one beside this interpreter, or one on PATH."""
    if config.binary:
        return config.binary
    beside = Path(sys.executable).parent / "llama-server"
    if beside.exists():
        return beside
    found = shutil.which("llama-server")
    return Path(found) if found else None


def server_kind(config: EmbeddedConfig) -> str:
    """Which server runs the embedded models under `config`: "llama-server" or "llama-cpp-python"."""
    if config.server != "auto":
        return config.server
    return "llama-server" if llama_server_binary(config) else "llama-cpp-python"


def python_command(name: str, context_tokens: int, threads: int, port: int, extra: tuple[str, ...] = ()) -> list[str]:
    """llama-cpp-python's server: one conversation, a context for a whole agent episode."""
    return [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(embedded.gguf_path(name)),
        "--model_alias",
        name,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(context_tokens),
        "--n_threads",
        str(threads),
        "--n_threads_batch",
        str(threads),
        *extra,
    ]


def server_command(binary: Path, name: str, models: ModelsConfig, port: int) -> list[str]:
    """llama-server: `slots` conversations of `context_tokens` each, with the configured speculation."""
    config, threads = models.embedded, models.threads or default_threads()
    slots = config.slots or 1
    command = [
        str(binary),
        "--model",
        str(embedded.gguf_path(name)),
        "--alias",
        name,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--ctx-size",
        str(models.context_tokens * slots),
        "--parallel",
        str(slots),
        "--no-kv-unified",
        "--threads",
        str(threads),
        "--threads-batch",
        str(threads),
        "--no-webui",
        "--jinja",
    ]
    speculation = (["draft-simple"] if config.draft else []) + (["ngram-mod"] if config.ngram else [])
    if config.draft:
        command += [
            "--spec-draft-model",
            str(embedded.gguf_path(draft_name(config))),
            "--spec-draft-n-max",
            str(config.draft_tokens),
            "--spec-draft-threads",
            str(threads),
            "--spec-draft-threads-batch",
            str(threads),
        ]
    if speculation:
        command += ["--spec-type", ",".join(speculation)]
    return command


def draft_name(config: EmbeddedConfig) -> str:
    if not config.draft or not config.draft.startswith("local/"):
        raise ModelError(f"models.embedded.draft must be an embedded model (local/NAME), not {config.draft!r}")
    return config.draft.removeprefix("local/")


def check_memory(name: str, models: ModelsConfig) -> None:
    """Refuse a slot count whose KV cache, with the weights, cannot fit the memory this machine has available."""
    slots = models.embedded.slots or 1
    weights = [embedded.EMBEDDED[name]] + (
        [embedded.EMBEDDED[draft_name(models.embedded)]] if models.embedded.draft else []
    )
    needed = SERVER_OVERHEAD_BYTES + sum(g.size + g.kv_bytes_per_token * models.context_tokens * slots for g in weights)
    available = _available_memory()
    if available is not None and needed > available:
        raise ModelError(
            f"llama-server with {slots} slots of {models.context_tokens} tokens for local/{name} needs about "
            f"{needed / 2**30:.1f} GiB, {available / 2**30:.1f} GiB is available; set models.embedded.slots (or "
            "executor.workers) or models.context_tokens lower"
        )


def start(
    name: str, context_tokens: int, threads: int | None = None, extra: tuple[str, ...] = ()
) -> process.ServerProcess:
    """Start llama-cpp-python's server of embedded model `name` and wait until it answers."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise ModelError(f"llama-cpp-python is not installed, it serves local/{name}; {embedded.INSTALL_HINT}")
    embedded.ensure(name)
    return process.ServerProcess.start(
        f"local/{name}",
        lambda port: python_command(name, context_tokens, threads or default_threads(), port, extra),
        "/v1/models",
        START_TIMEOUT_S,
    )


def start_llama_server(name: str, models: ModelsConfig) -> process.ServerProcess:
    """Start llama-server for embedded model `name`; a port taken between our choice and its bind gets one more try."""
    binary = llama_server_binary(models.embedded)
    if binary is None or not binary.exists():
        raise ModelError(
            f"llama-server is not built{f' ({binary} does not exist)' if binary else ''}; run scripts/setup.sh, "
            'or set models.embedded.server = "llama-cpp-python"'
        )
    embedded.ensure(name)
    if models.embedded.draft:
        embedded.ensure(draft_name(models.embedded))
    check_memory(name, models)
    for attempt in range(2):
        try:
            return process.ServerProcess.start(
                f"local/{name}", lambda port: server_command(binary, name, models, port), "/health", START_TIMEOUT_S
            )
        except ModelUnavailable as e:
            if attempt == 0 and "couldn't bind" in str(e):
                continue
            raise ModelUnavailable(f"llama-server for local/{name} did not start: {_reason(str(e))}") from e
    raise AssertionError("unreachable")


class LlamaProvider:
    """Starts (or shares) the server of each embedded model this LLM uses."""

    def __init__(self, models: ModelsConfig):
        self.models = models
        self.kind = server_kind(models.embedded)
        self._held: list[str] = []

    def endpoint(self, name: str, params: dict[str, Any]) -> Endpoint:
        embedded.ensure(name)
        if self.kind == "llama-server":
            key = f"local/{name} llama-server"
            server = process.acquire(key, lambda: start_llama_server(name, self.models))
            slots = _slots.setdefault(server, Slots(self.models.embedded.slots or 1, routed=True))
        else:
            key = f"local/{name}"
            server = process.acquire(key, lambda: start(name, self.models.context_tokens, self.models.threads))
            slots = _slots.setdefault(server, Slots(1, routed=False))
        self._held.append(key)
        model = f"openai/{name}"
        register_free(model)
        identity = cache_identity(self.kind)
        return Endpoint(
            model=model,
            kwargs={"api_base": f"{server.url}/v1", "api_key": "local"},
            schema="json_object",
            slots=slots,
            server=server,
            identity=lambda: identity,
        )

    def close(self) -> None:
        while self._held:
            process.release(self._held.pop())


def cache_identity(kind: str) -> str:
    """What tells the replies of each server of the same model apart in the response cache (their kernels round
    differently, so their replies differ): llama-server's, the default, keep the keys they always had."""
    return "" if kind == "llama-server" else kind


def _available_memory() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _reason(error: str) -> str:
    """The line of a failed start's log that says why, else the error's first line."""
    lines = error.splitlines()
    for line in lines[1:]:
        if any(word in line.lower() for word in ("error", "failed", "couldn't", "invalid", "mismatch", "not match")):
            return line.strip()
    return lines[0]
