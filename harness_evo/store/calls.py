"""A model call and an evolution iteration, as the run records them."""

from typing import ClassVar

from pydantic import BaseModel, Field

from harness_evo.store.record import Record


class LlmCall(Record):
    """A row of `llm_calls`: one model call of a role (a cache hit included)."""

    event: ClassVar[str] = "llm_call"
    table: ClassVar[str] = "llm_calls"

    id: str
    role: str
    """solver, analyzer, proposer or critic."""
    model: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int = 0
    """Prompt tokens the server answered from its cache."""
    tokens_drafted: int = 0
    """Tokens speculative decoding proposed (llama-server with a draft model or n-grams); 0 without speculation."""
    tokens_accepted: int = 0
    """Of those, the tokens the model accepted: the draft's acceptance is `tokens_accepted / tokens_drafted`."""
    latency_s: float = 0.0
    cost: float = 0.0
    """Dollars (0 for cache hits and local models)."""
    cache_hit: bool = False
    """Answered from the response cache."""
    error: str | None = None
    ts: float | None = None


class Spend(BaseModel):
    """The model calls of one role and what they cost."""

    calls: int = 0
    """Calls made, cache hits included."""
    cached: int = 0
    """Calls answered from the response cache."""
    errors: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    """Dollars."""


class Iteration(Record):
    """A row of `iterations`: one evolution iteration, written when it starts and again when it ends."""

    event: ClassVar[str] = "iteration"
    table: ClassVar[str] = "iterations"

    id: int
    arm: str | None = None
    """The curriculum's arm (a pattern id, or explore)."""
    node_id: str | None = None
    """The node it expanded."""
    tasks: list[str] = Field(default_factory=list)
    """Its minibatch of train tasks."""
    started: float | None = None
    finished: float | None = None
    """None while it runs."""
    outcome: str | None = None
    """What came of it, in one line."""
    spend: dict[str, float] = Field(default_factory=dict)
    """Dollars spent per role by its end."""
