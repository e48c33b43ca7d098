"""`vllm/<name>`: an open-weight model served by vLLM's OpenAI-compatible server on a GPU.

`harness-evo serve vllm --model NAME` starts one by hand; a role whose model is `vllm/NAME` has one
started on first use and stopped with the LLM (unless its params name an `api_base` of a running server).
vLLM batches concurrent requests itself, so calls are not queued.
"""

import shutil
from typing import Any

from harness_evo.config import ModelsConfig, VllmConfig
from harness_evo.llm import process
from harness_evo.llm.endpoint import Endpoint, register_free
from harness_evo.llm.errors import ModelError

INSTALL_HINT = "install the `vllm` extra on a machine with a GPU: pip install 'harness-evo[vllm]'"


def command(model: str, config: VllmConfig, port: int) -> list[str]:
    args = [
        "vllm",
        "serve",
        model,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--gpu-memory-utilization",
        str(config.gpu_memory_utilization),
        "--tensor-parallel-size",
        str(config.tensor_parallel_size),
    ]
    if config.max_model_len:
        args += ["--max-model-len", str(config.max_model_len)]
    return args


def start(model: str, config: VllmConfig, port: int | None = None) -> process.ServerProcess:
    """Start `vllm serve` and wait for its /health; raises ModelUnavailable with its log tail when it fails."""
    if shutil.which("vllm") is None:
        raise ModelError(f"vLLM is not installed (no `vllm` command on PATH); {INSTALL_HINT}")
    return process.ServerProcess.start(
        f"vllm/{model}", lambda free: command(model, config, free), "/health", config.start_timeout_s, port=port
    )


class VllmProvider:
    """Starts (or shares) a vLLM server per model, or talks to the one named by `api_base`."""

    def __init__(self, models: ModelsConfig):
        self.config = models.vllm
        self._held: list[str] = []

    def endpoint(self, name: str, params: dict[str, Any]) -> Endpoint:
        model = f"openai/{name}"
        register_free(model)
        if "api_base" in params:
            return Endpoint(model=model, kwargs={"api_key": "vllm"}, schema="json_schema")
        key = f"vllm/{name}"
        server = process.acquire(key, lambda: start(name, self.config))
        self._held.append(key)
        return Endpoint(
            model=model, kwargs={"api_base": f"{server.url}/v1", "api_key": "vllm"}, schema="json_schema", server=server
        )

    def close(self) -> None:
        while self._held:
            process.release(self._held.pop())
