"""Where the agent's commands run: a Sandbox protocol and its backends, picked by name."""

from harness_evo.config import SandboxConfig
from harness_evo.sandbox.base import CommandResult, Sandbox, SandboxBackend
from harness_evo.sandbox.docker import DockerBackend
from harness_evo.sandbox.local import LocalBackend

BACKENDS: dict[str, type] = {"docker": DockerBackend, "local": LocalBackend}
"""`[sandbox] backend` name -> backend class."""


def get_backend(config: SandboxConfig, run_id: str | None = None) -> SandboxBackend:
    """The backend named by `config.backend`, its sandboxes marked with `run_id`;
    an unreachable Docker raises SandboxUnavailable."""
    return BACKENDS[config.backend](config, run_id=run_id)


__all__ = ["BACKENDS", "CommandResult", "Sandbox", "SandboxBackend", "get_backend"]
