"""Where the agent's commands run: a Sandbox protocol and its backends, picked by name."""

from harness_evo.sandbox.base import CommandResult, Sandbox, SandboxBackend

__all__ = ["CommandResult", "Sandbox", "SandboxBackend"]
