"""A failure record (what went wrong in one failed rollout), the starting taxonomy, and signatures."""

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Blame = Literal["harness", "model", "task", "environment"]

TAXONOMY: dict[str, str] = {
    "premature-success": "declared the task done although the result was wrong, partial or missing",
    "no-verification": "finished without ever looking at the result it produced",
    "wrong-tool-missing-binary": "relied on a program that is not installed and did not switch to one that is",
    "broken-harness-tool": "called a tool the harness supplies, which crashed, and did not get past it",
    "command-loop": "repeated the same command or pair of commands without changing its approach",
    "misread-instruction": "solved a different problem than the one asked (wrong file, field, condition or scope)",
    "wrong-output-format": "produced the right content in the wrong format, place or file name",
    "incomplete-solution": "handled only part of what was asked",
    "environment-assumption": "assumed something false about the environment (paths, permissions, versions, network)",
    "syntax-error-in-command": "shell or script syntax and quoting errors it did not recover from",
    "gave-up": "stopped or declared it could not finish while a way forward was available",
    "format-errors": "replies the harness could not parse as an action",
    "step-limit": "ran out of steps while still working (use only when nothing more specific fits)",
    "time-limit": "ran out of wall time, e.g. with a blocking or very slow command",
    "context-limit": "the conversation outgrew the model's context window (long outputs, too many steps)",
    "infrastructure": "the sandbox, model server or verifier failed; nothing the agent did",
}
"""The starting categories. The analyzer may name a new one (kebab-case) when none fits; the list grows with use."""


class FailureRecord(BaseModel):
    """Why one rollout failed. This is also the structured output asked of the analyzer."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    category: str
    """A category of the taxonomy, or a new kebab-case name when none fits."""
    pattern: str
    """The defect in general words that would fit other tasks too: no file names, values or task details."""
    root_cause: str
    """One sentence: why this rollout failed."""
    critical_step: int
    """The first step after which the task could no longer succeed."""
    evidence: str
    """A short quote from the trajectory that shows the failure."""
    blame: Blame
    """Who could fix it: the harness (prompts, tools, skills, limits), the model, the task, or the environment."""
    confidence: float = Field(ge=0.0, le=1.0)
    """How sure the analysis is, from 0 to 1."""

    @field_validator("category")
    @classmethod
    def _kebab(cls, value: str) -> str:
        return re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-") or "unknown"

    @field_validator("evidence", "root_cause", "pattern")
    @classmethod
    def _short(cls, value: str) -> str:
        value = " ".join(value.split())
        return value if len(value) <= 300 else value[:297] + "..."

    @property
    def signature(self) -> str:
        return signature(self.category, self.pattern)


def signature(category: str, text: str) -> str:
    """A normalized key of a failure: specifics (quoted text, paths, numbers, hashes) become placeholders."""
    text = text.lower()
    text = re.sub(r"`[^`]*`|'[^']*'|\"[^\"]*\"", " <q> ", text)
    text = re.sub(r"(?:\.{0,2}/)?(?:[\w.-]+/)+[\w.-]*", " <path> ", text)
    text = re.sub(r"\b[0-9a-f]{7,}\b", " <hex> ", text)
    text = re.sub(r"\b\d+(?:\.\d+)?\b", " <n> ", text)
    text = re.sub(r"[^a-z<>\s-]+", " ", text)
    return f"{category}: {' '.join(text.split())[:160]}"
