"""Errors a user can cause. The CLI prints each as one line and exits non-zero, never a traceback."""


class UserError(Exception):
    """A mistake the user can fix: bad input, missing setup. The message says what to do."""


class HarnessError(UserError):
    """A harness folder that cannot be loaded, validated or rendered."""


class TaskError(UserError):
    """A task folder or suite that cannot be loaded."""


class ConfigError(UserError):
    """A run configuration that is malformed or inconsistent."""


class SandboxUnavailable(UserError):
    """The chosen sandbox backend cannot run on this machine."""


class InfraError(Exception):
    """Our infrastructure failed (image build, container death, verifier without reward): not the agent's fault."""


def first_line(error: BaseException, limit: int = 300) -> str:
    """The first line of an error's message (at most `limit` characters), or its type's name when it has none."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0][:limit]
