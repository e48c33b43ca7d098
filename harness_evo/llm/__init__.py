"""The model layer: every role talks to its model through `LLM.complete` (see client.py)."""

from harness_evo.llm import scripted
from harness_evo.llm.client import LLM, Reply
from harness_evo.llm.errors import ContextTooLong, ModelError, ModelUnavailable

__all__ = ["LLM", "Reply", "ModelError", "ModelUnavailable", "ContextTooLong", "scripted"]
