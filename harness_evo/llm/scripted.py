"""The scripted test model: `scripted/<name>` answers from replies a test registers, through the same layer.

    scripted.register("analyst", ['{"cause": "x"}', "garbage"])      # each call takes the next reply
    scripted.register("echo", lambda messages: messages[-1]["content"])

A reply may also be an exception (e.g. `litellm.RateLimitError(...)`), raised as if the model had failed.
Calls go through litellm's `mock_response`, so retries, the response cache, token counts and `llm_calls`
rows behave as for a real model. Registering a name again starts a fresh script whose replies are never
answered from the cache entries of an earlier one.
"""

import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import litellm

from harness_evo.llm.endpoint import Endpoint, register_free
from harness_evo.llm.errors import ModelError

Script = Sequence[str | Exception] | Callable[[list[dict]], str | Exception]


@dataclass
class _Registration:
    script: Script
    token: str
    calls: int = 0
    params: dict[str, Any] | None = None
    """The sampling parameters of the last call."""


_scripts: dict[str, _Registration] = {}
_lock = threading.Lock()


def register(name: str, replies: Script, token: str | None = None) -> None:
    """Make `scripted/<name>` answer with `replies`: a list taken in order, or a function of the messages.

    `token` names the script in the response cache; registering the same script with the same token in another
    process (e.g. a run resumed after a crash) finds the replies the first process cached."""
    with _lock:
        _scripts[name] = _Registration(replies if callable(replies) else list(replies), token or uuid.uuid4().hex)


def registration(name: str) -> tuple[Script, str]:
    """The script and token of `scripted/<name>`, to register the same model in another process (`adopt`)."""
    with _lock:
        found = _lookup(name)
        return found.script, found.token


def adopt(name: str, replies: Script, token: str) -> None:
    """Register `replies` as `scripted/<name>` unless this process has that registration (by token) already: a worker
    process adopts its head's script once, and a list of replies is then taken in order across that process's calls."""
    with _lock:
        if name in _scripts and _scripts[name].token == token:
            return
        _scripts[name] = _Registration(replies if callable(replies) else list(replies), token)


def calls(name: str) -> int:
    """How many times the model `scripted/<name>` was actually called (cache hits excluded)."""
    with _lock:
        return _lookup(name).calls


def last_params(name: str) -> dict[str, Any] | None:
    """The sampling parameters (temperature, max_tokens, stop, seed) of the last call of `scripted/<name>` that reached
    it."""
    with _lock:
        return _lookup(name).params


def token(name: str) -> str:
    """Identifies the current registration of `name`; part of the cache key of its calls."""
    with _lock:
        return _lookup(name).token


def reply(name: str, messages: list[dict], params: dict[str, Any] | None = None) -> str | Exception:
    """The next reply of `scripted/<name>` to `messages`."""
    with _lock:
        registration = _lookup(name)
        registration.calls += 1
        registration.params = params
        script = registration.script
        if callable(script):
            respond = script
        else:
            if registration.calls > len(script):
                raise ModelError(
                    f"scripted/{name} was called {registration.calls} times but has only {len(script)} replies"
                )
            return script[registration.calls - 1]
    return respond(messages)


def _lookup(name: str) -> _Registration:
    if name not in _scripts:
        raise ModelError(
            f"no scripted model named {name!r}; call harness_evo.llm.scripted.register({name!r}, replies) first"
        )
    return _scripts[name]


class ScriptedProvider:
    """`scripted/<name>`: litellm answers with the registered replies instead of calling a server."""

    def endpoint(self, name: str, params: dict[str, Any]) -> Endpoint:
        model = f"openai/scripted/{name}"
        register_free(model)
        return Endpoint(
            model=model, mock=lambda messages, params: _response(name, messages, params), identity=lambda: token(name)
        )

    def close(self) -> None:
        pass


def _response(name: str, messages: list[dict], params: dict[str, Any]) -> dict | Exception:
    """A chat completion as litellm's `mock_response`, cut at the first stop sequence, with counted tokens."""
    text = reply(name, messages, {key: params.get(key) for key in ("temperature", "max_tokens", "stop", "seed")})
    if isinstance(text, Exception):
        return text
    cuts = [text.index(sequence) for sequence in params.get("stop") or [] if sequence in text]
    text = text[: min(cuts)] if cuts else text
    tokens_in = litellm.token_counter(model="gpt-4o", messages=messages)
    tokens_out = litellm.token_counter(model="gpt-4o", text=text, count_response_tokens=True)
    return {
        "model": f"scripted/{name}",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out, "total_tokens": tokens_in + tokens_out},
    }
