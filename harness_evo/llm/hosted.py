"""Any model litellm knows (`openai/gpt-4o-mini`, `anthropic/...`, `ollama/...`): checked before the first call."""

from typing import Any

import litellm

from harness_evo.llm.endpoint import Endpoint
from harness_evo.llm.errors import ModelError


class HostedProvider:
    """Models served by someone else; litellm does the talking, we only check the name and the API key."""

    def endpoint(self, name: str, params: dict[str, Any]) -> Endpoint:
        try:
            litellm.get_llm_provider(name, api_base=params.get("api_base"))
        except litellm.BadRequestError as e:
            raise ModelError(
                f"unknown model {name!r}: use a litellm name such as openai/gpt-4o-mini, "
                "local/qwen2.5-coder-1.5b, vllm/<hf-name> or scripted/<name>"
            ) from e
        if "api_key" not in params:
            missing = litellm.validate_environment(name).get("missing_keys") or []
            if missing:
                raise ModelError(f"model {name} needs {', '.join(missing)} set in the environment")
        return Endpoint(model=name, schema="json_schema" if _supports_schema(name) else None)

    def close(self) -> None:
        pass


def _supports_schema(name: str) -> bool:
    try:
        return litellm.supports_response_schema(model=name)
    except litellm.exceptions.NotFoundError:
        return False
