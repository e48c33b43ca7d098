"""The one way harness-evo talks to models: `LLM.complete(role, messages, output=...)`.

Per role the model and its parameters come from `ModelsConfig`. A call is answered from the response cache
when an identical request was made before; otherwise it goes through litellm, with retries and backoff on
transient failures. With `output`, the reply is validated as that pydantic model: the server is asked for
the JSON schema where it supports one, otherwise JSON is parsed from the text; an invalid reply gets
exactly one repair round, and a reply still invalid comes back as `Reply(error=...)`, not an exception.
Every model call (cache hits included) is recorded as an `llm_call` event when a store is given.
"""

import json
import threading
import time
import uuid
from contextlib import nullcontext
from typing import Any

import litellm
from pydantic import BaseModel, ConfigDict

from harness_evo.config import ModelsConfig, RoleModel
from harness_evo.errors import first_line
from harness_evo.llm import structured
from harness_evo.llm.cache import ResponseCache, request_key
from harness_evo.llm.endpoint import Endpoint, Provider
from harness_evo.llm.errors import ContextTooLong, ModelError, ModelUnavailable
from harness_evo.llm.hosted import HostedProvider
from harness_evo.llm.llama import LlamaProvider
from harness_evo.llm.scripted import ScriptedProvider
from harness_evo.llm.vllm import VllmProvider
from harness_evo.redaction import from_env, redact
from harness_evo.store.run import RunStore

litellm.suppress_debug_info = True

TRANSIENT = (
    litellm.RateLimitError,
    litellm.Timeout,
    litellm.APIConnectionError,
    litellm.InternalServerError,
    litellm.ServiceUnavailableError,
    litellm.BadGatewayError,
)
"""Failures that retrying may fix."""
UNCACHED_PARAMS = ("api_key", "timeout")
"""Call parameters that do not change the reply."""


class Reply(BaseModel):
    """What one `complete` call produced (summed over the repair round, when there was one)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    text: str
    """The model's last reply."""
    parsed: BaseModel | None = None
    """The reply as the requested output model, when one was requested and the reply was valid."""
    error: str | None = None
    """Why the reply is not a valid output even after the repair round."""
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    """Dollars paid (0 for cache hits and local models)."""
    latency_s: float = 0.0
    cached: bool = False
    """Every model call of this reply was answered from the response cache."""


class _Answer(BaseModel):
    text: str
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int = 0
    tokens_drafted: int = 0
    tokens_accepted: int = 0
    cost: float = 0.0
    latency_s: float = 0.0
    cached: bool = False
    key: str | None = None
    """The response-cache key of a reply the model gave, written to the cache once the call is recorded."""


class LLM:
    """Models per role over litellm, with cache, accounting, retries and structured output. Thread-safe.

    Local servers (`local/...`, `vllm/...`) start on the first call that needs them and are shared by
    every `LLM` of the process; `close()` (or leaving the `with` block) releases them.
    """

    def __init__(self, models: ModelsConfig, store: RunStore | None = None, cache: bool | None = None):
        self.models = models
        self.store = store
        self.cache = ResponseCache() if (models.cache if cache is None else cache) else None
        self._providers: dict[str, Provider] = {}
        self._endpoints: dict[str, Endpoint] = {}
        self._lock = threading.Lock()

    def __enter__(self) -> "LLM":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            providers, self._providers, self._endpoints = list(self._providers.values()), {}, {}
        for provider in providers:
            provider.close()
        if self.cache:
            self.cache.close()
            self.cache = None

    def complete(
        self,
        role: str,
        messages: list[dict],
        *,
        output: type[BaseModel] | None = None,
        seed: int | None = None,
        stop: list[str] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Reply:
        """The role's reply to `messages`; `max_tokens` and `temperature`, when given, replace the role's own."""
        config = self.models.role(role)
        endpoint = self.endpoint(config)
        params: dict[str, Any] = {
            "temperature": config.temperature if temperature is None else temperature,
            "max_tokens": max_tokens or config.max_tokens,
            "seed": seed,
            "stop": stop,
            **_params(config),
        }
        if output is not None and endpoint.schema:
            params["response_format"] = structured.response_format(output, endpoint.schema)
        answers = [self._call(role, config, endpoint, messages, params)]
        parsed, error = None, None
        if output is not None:
            parsed, error = _validate(answers[-1].text, output)
            if error:
                self._record(role, config, answers[-1], f"invalid output, repairing: {error}")
                repair = [
                    *messages,
                    {"role": "assistant", "content": answers[-1].text},
                    structured.repair_message(error, output),
                ]
                answers.append(self._call(role, config, endpoint, repair, params))
                parsed, error = _validate(answers[-1].text, output)
        self._record(role, config, answers[-1], error and f"invalid output: {error}")
        return Reply(
            text=answers[-1].text,
            parsed=parsed,
            error=error,
            tokens_in=sum(a.tokens_in for a in answers),
            tokens_out=sum(a.tokens_out for a in answers),
            cost=sum(a.cost for a in answers),
            latency_s=sum(a.latency_s for a in answers),
            cached=all(a.cached for a in answers),
        )

    def endpoint(self, config: RoleModel) -> Endpoint:
        """Where calls of a role's model go; the first use may start its local server (again, after it died)."""
        prefix, _, rest = config.model.partition("/")
        with self._lock:
            key = _endpoint_key(config)
            if key not in self._endpoints:
                kind = prefix if prefix in PROVIDERS and rest else "hosted"
                provider = self._providers.setdefault(kind, PROVIDERS[kind](self.models))
                self._endpoints[key] = provider.endpoint(rest if kind != "hosted" else config.model, config.params)
            return self._endpoints[key]

    def _call(
        self, role: str, config: RoleModel, endpoint: Endpoint, messages: list[dict], params: dict[str, Any]
    ) -> _Answer:
        """One model reply: from the cache, or from the model (cached once `_record` has recorded it)."""
        started = time.monotonic()
        key = request_key(
            {
                "model": config.model,
                "identity": endpoint.identity(),
                "messages": messages,
                "params": {k: v for k, v in params.items() if k not in UNCACHED_PARAMS},
            }
        )
        if self.cache and (hit := self.cache.get(key)):
            return _Answer(**hit, cached=True, latency_s=time.monotonic() - started)
        try:
            answer = self._ask(config, endpoint, messages, params)
        except (ModelError, ModelUnavailable) as e:
            self._record(role, config, _Answer(text="", latency_s=time.monotonic() - started), str(e))
            if endpoint.server and not endpoint.server.alive:
                with self._lock:  # the next call starts a new server
                    self._endpoints.pop(_endpoint_key(config), None)
            raise
        return answer.model_copy(update={"key": key})

    def _ask(self, config: RoleModel, endpoint: Endpoint, messages: list[dict], params: dict[str, Any]) -> _Answer:
        """Call the model, retrying transient failures with exponential backoff."""
        for attempt in range(self.models.retries + 1):
            if endpoint.mock:
                params = {**params, "mock_response": endpoint.mock(messages, params)}
            try:
                with endpoint.slots.hold() if endpoint.slots else nullcontext() as slot:
                    routed = {"extra_body": {"id_slot": slot}} if endpoint.slots and endpoint.slots.routed else {}
                    return _completion(endpoint, messages, {**params, **routed}, config.timeout_s)
            except litellm.ContextWindowExceededError as e:
                raise ContextTooLong(
                    f"{config.model}: the request does not fit its context window ({_first_line(e)}); shorten the "
                    "prompt or observations"
                ) from e
            except litellm.AuthenticationError as e:
                raise ModelError(f"{config.model}: authentication failed ({_first_line(e)}); check its API key") from e
            except litellm.NotFoundError as e:
                raise ModelError(f"{config.model}: unknown model ({_first_line(e)})") from e
            except litellm.BadRequestError as e:
                raise ModelError(f"{config.model}: request rejected ({_first_line(e)})") from e
            except TRANSIENT as e:
                if endpoint.server and not endpoint.server.alive:
                    raise ModelUnavailable(f"{config.model}: its server died; {endpoint.server.tail()}") from e
                if attempt == self.models.retries:
                    raise ModelUnavailable(
                        f"{config.model}: unreachable after {attempt + 1} attempts ({_first_line(e)})"
                    ) from e
                time.sleep(self.models.backoff_s * 2**attempt)
        raise AssertionError("unreachable")

    def _record(self, role: str, config: RoleModel, answer: _Answer, error: str | None) -> None:
        """Record the call as an `llm_call` event, then cache a reply the model gave: a process killed (or a disk full)
        in between leaves a call paid and recorded but not cached, never one paid and answered later from the cache as
        if it had cost nothing."""
        if self.store is not None:
            self.store.emit(
                "llm_call",
                id=uuid.uuid4().hex,
                role=role,
                model=config.model,
                tokens_in=answer.tokens_in,
                tokens_out=answer.tokens_out,
                tokens_cached=answer.tokens_cached,
                tokens_drafted=answer.tokens_drafted,
                tokens_accepted=answer.tokens_accepted,
                latency_s=answer.latency_s,
                cost=answer.cost,
                cache_hit=answer.cached,
                error=error,
                ts=time.time(),
            )
        if self.cache and answer.key and not answer.cached:
            self.cache.put(answer.key, answer.model_dump(include={"text", "tokens_in", "tokens_out", "tokens_cached"}))


PROVIDERS: dict[str, Any] = {
    "scripted": lambda models: ScriptedProvider(),
    "local": LlamaProvider,
    "vllm": VllmProvider,
    "hosted": lambda models: HostedProvider(),
}
"""Model-name prefix -> provider factory (taking the ModelsConfig); names of any other prefix go to litellm."""


def _completion(endpoint: Endpoint, messages: list[dict], params: dict[str, Any], timeout_s: float) -> _Answer:
    started = time.monotonic()
    response = litellm.completion(
        model=endpoint.model,
        messages=messages,
        timeout=timeout_s,
        max_retries=0,
        **endpoint.kwargs,
        **{k: v for k, v in params.items() if v is not None},
    )
    latency = time.monotonic() - started
    usage = response.usage
    details = getattr(usage, "prompt_tokens_details", None)
    timings = getattr(response, "timings", None) or {}  # llama-server's, with its speculation counts
    return _Answer(
        text=response.choices[0].message.content or "",
        tokens_in=usage.prompt_tokens,
        tokens_out=usage.completion_tokens,
        tokens_cached=(getattr(details, "cached_tokens", None) or 0) if details else 0,
        tokens_drafted=timings.get("draft_n", 0),
        tokens_accepted=timings.get("draft_n_accepted", 0),
        cost=_cost(response, endpoint.model),
        latency_s=latency,
    )


def _cost(response: Any, model: str) -> float:
    try:
        return litellm.completion_cost(completion_response=response, model=model)
    except litellm.exceptions.ModelNotMappedError:  # a model litellm has no price for (e.g. a self-hosted one)
        return 0.0


def _params(config: RoleModel) -> dict[str, Any]:
    """The role's extra call parameters, secrets read from the environment variables they name."""
    try:
        return from_env(config.params)
    except KeyError as e:
        raise ModelError(
            f"{config.model}: its params name the environment variable {e.args[0]}, which is not set"
        ) from None


def _endpoint_key(config: RoleModel) -> str:
    return f"{config.model} {json.dumps(config.params, sort_keys=True, default=str)}"


def _validate(text: str, output: type[BaseModel]) -> tuple[BaseModel | None, str | None]:
    try:
        return structured.parse(text, output), None
    except structured.InvalidOutput as e:
        return None, str(e)


def _first_line(error: Exception) -> str:
    """The error's first line, without the secrets of the environment (a server may quote the key it was sent)."""
    return redact(first_line(error))
