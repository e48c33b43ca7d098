"""`local/<name>`: an embedded GGUF served by llama-cpp-python's OpenAI-compatible server on 127.0.0.1.

One server per model per process, shared by all roles and worker threads, started on first use. The
server answers one request at a time, so a semaphore queues callers in front of it: with 2 workers, one
waits while the other's reply is generated (the per-call timeout counts from when its turn comes).
"""

import importlib.util
import os
import sys
import threading
from collections import defaultdict
from typing import Any

from harness_evo.config import ModelsConfig
from harness_evo.llm import embedded, process
from harness_evo.llm.endpoint import Endpoint, register_free
from harness_evo.llm.errors import ModelError

START_TIMEOUT_S = 180.0
_gates: defaultdict[str, threading.Semaphore] = defaultdict(lambda: threading.Semaphore(1))


def default_threads() -> int:
    """All cores: on an otherwise idle 2-core machine 2 threads generate twice as fast as 1, even with two agents'
    sandboxes running their commands. On a machine busy with other work, set `models.threads` lower: llama.cpp's
    threads wait for each other at every step, so a core taken away slows it many times over."""
    return len(os.sched_getaffinity(0))


def command(name: str, context_tokens: int, threads: int, port: int, extra: tuple[str, ...] = ()) -> list[str]:
    """The server's command line: a context for a whole agent episode."""
    return [
        sys.executable, "-m", "llama_cpp.server", "--model", str(embedded.gguf_path(name)), "--model_alias", name,
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(context_tokens),
        "--n_threads", str(threads), "--n_threads_batch", str(threads), *extra,
    ]


def start(name: str, context_tokens: int, threads: int | None = None, extra: tuple[str, ...] = ()) -> process.ServerProcess:
    """Start the server of embedded model `name` and wait until it answers."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise ModelError(f"llama-cpp-python is not installed, it serves local/{name}; {embedded.INSTALL_HINT}")
    embedded.ensure(name)
    return process.ServerProcess.start(
        f"local/{name}", lambda port: command(name, context_tokens, threads or default_threads(), port, extra), "/v1/models", START_TIMEOUT_S
    )


class LlamaProvider:
    """Starts (or shares) the llama.cpp server of each embedded model this LLM uses."""

    def __init__(self, models: ModelsConfig):
        self.context_tokens = models.context_tokens
        self.threads = models.threads
        self._held: list[str] = []

    def endpoint(self, name: str, params: dict[str, Any]) -> Endpoint:
        embedded.ensure(name)
        key = f"local/{name}"
        server = process.acquire(key, lambda: start(name, self.context_tokens, self.threads))
        self._held.append(key)
        model = f"openai/{name}"
        register_free(model)
        return Endpoint(
            model=model, kwargs={"api_base": f"{server.url}/v1", "api_key": "local"}, schema="json_object",
            gate=_gates[key], server=server,
        )

    def close(self) -> None:
        while self._held:
            process.release(self._held.pop())
