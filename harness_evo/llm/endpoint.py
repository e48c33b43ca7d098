"""Where the calls of one model go: a provider per kind of model name turns the name into an endpoint."""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import litellm

from harness_evo.llm.process import ServerProcess
from harness_evo.llm.slots import Slots


@dataclass
class Endpoint:
    """How to call one model through litellm."""

    model: str
    """The litellm model name (`openai/qwen2.5-coder-1.5b` for a local server)."""
    kwargs: dict[str, Any] = field(default_factory=dict)
    """Extra litellm arguments: api_base, api_key."""
    schema: str | None = None
    """How the server takes a JSON schema in `response_format` (see structured.response_format); None: it does not."""
    slots: Slots | None = None
    """The conversations the server holds at once: callers beyond them wait their turn (None: no limit of ours)."""
    server: ServerProcess | None = None
    """The local server behind the endpoint, when we started one."""
    mock: Callable[[list[dict], dict[str, Any]], Any] | None = None
    """Produces litellm's `mock_response` for a call from its messages and sampling parameters (the scripted test
    model)."""
    identity: Callable[[], str] = lambda: ""
    """Distinguishes requests to models of the same name in the response cache (asked at every call)."""


class Provider(Protocol):
    """Turns model names of one kind (`local/...`, `vllm/...`, `scripted/...`, any litellm name) into endpoints."""

    def endpoint(self, name: str, params: dict[str, Any]) -> Endpoint:
        """The endpoint of `name` (without the provider prefix); may start a server. Raises ModelError."""
        ...

    def close(self) -> None:
        """Release the servers this provider started or shares."""
        ...


def register_free(model: str) -> None:
    """Tell litellm's (local) cost map that `model` costs nothing, so its cost is computed as 0."""
    litellm.register_model(
        {
            model: {
                "litellm_provider": "openai",
                "mode": "chat",
                "input_cost_per_token": 0.0,
                "output_cost_per_token": 0.0,
                "cache_read_input_token_cost": 0.0,
                "cache_creation_input_token_cost": 0.0,
            }
        }
    )
