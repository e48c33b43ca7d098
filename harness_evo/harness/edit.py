"""An edit to a harness: operations on its components (GEPA's candidate is a dict of texts, so is ours)."""

import re
from typing import Annotated, Literal

from pydantic import BaseModel, Field, field_validator

from harness_evo.harness.paths import safe_relative


class EditError(ValueError):
    """An edit that cannot be applied to the harness it targets."""


class Operation(BaseModel):
    path: str
    """The component changed, a path relative to the harness folder."""

    @field_validator("path")
    @classmethod
    def _safe(cls, path: str) -> str:
        return safe_relative(path)


class Replace(Operation):
    """Replace the one occurrence of `old` in a component by `new`."""

    op: Literal["replace"] = "replace"
    old: str
    """Text that occurs exactly once in the component."""
    new: str
    """Its replacement."""

    def apply(self, components: dict[str, str]) -> None:
        text = components.get(self.path)
        if text is None:
            raise EditError(f"replace: no component {self.path}")
        count = text.count(self.old) if self.old.strip() else 0
        if count == 1:
            components[self.path] = text.replace(self.old, self.new)
            return
        loose = list(loose_pattern(self.old).finditer(text)) if count == 0 and self.old.strip() else []
        if len(loose) != 1:
            raise EditError(f"replace: the old text occurs {count} times in {self.path}, it must occur exactly once")
        components[self.path] = text[: loose[0].start()] + self.new + text[loose[0].end() :]


def loose_pattern(old: str) -> re.Pattern:
    """`old` up to case and whitespace: small models copy a line with its capital letter or spacing changed."""
    return re.compile(r"\s+".join(re.escape(word) for word in old.split()), re.IGNORECASE)


class Write(Operation):
    """Create a component or overwrite it whole."""

    op: Literal["write"] = "write"
    text: str
    """The component's full new text."""

    def apply(self, components: dict[str, str]) -> None:
        components[self.path] = self.text


class Delete(Operation):
    """Remove a component."""

    op: Literal["delete"] = "delete"

    def apply(self, components: dict[str, str]) -> None:
        if components.pop(self.path, None) is None:
            raise EditError(f"delete: no component {self.path}")


Op = Annotated[Replace | Write | Delete, Field(discriminator="op")]


class Edit(BaseModel):
    """A proposed change to a harness, with why and what it should change in the agent's behaviour."""

    ops: list[Op]
    """Operations applied in order."""
    rationale: str = ""
    """Why this edit addresses the failure pattern."""
    prediction: str = ""
    """A falsifiable prediction: which failures stop, at which step."""

    def apply(self, components: dict[str, str]) -> dict[str, str]:
        """New components with every operation applied; the input is not changed."""
        changed = dict(components)
        for op in self.ops:
            op.apply(changed)
        return changed

    def touched(self) -> list[str]:
        return sorted({op.path for op in self.ops})
