"""The proposer: turns one promoted failure pattern into candidate edits of the harness.

It sees the pattern, its evidence from distinct tasks, the harness's components, and the ledger of edits
already tried against the pattern (with their verdicts and reasons). Its reply is a deliberately flat JSON
schema, because small models write messy JSON; a draft that is not a valid edit becomes an `invalid`
proposal in the ledger, never a crash.
"""

import re
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, model_validator

from harness_evo.config import SearchConfig, one_line
from harness_evo.errors import UserError
from harness_evo.evolve import templates
from harness_evo.evolve.target import Target
from harness_evo.failures import Evidence
from harness_evo.harness import Edit, Harness
from harness_evo.standins import Needs, StandIns, Tryout, compiles, scriptable, tool_components, usage_line
from harness_evo.store import Edit as TriedEdit
from harness_evo.store import MoveKind

MAX_COMPONENT_CHARS = 3000
LEDGER_SHOWN = 8
PROGRAM_NAME = re.compile(r"[A-Za-z0-9][\w.+-]*")


class OpDraft(BaseModel):
    op: Literal["replace", "write", "delete", "append", "tool"]
    """replace: `old` -> `new` in `path`; write: `path` gets `text`; delete: `path` is removed; append: `text` is
    added at the end of `path` (a small model's easiest edit: nothing to quote exactly); tool: a command `name`,
    described by `description`, that runs the python3 script `text`. The order of the fields is the order a
    constrained decoder writes them in: a tool's script comes after its name."""
    path: str = ""
    name: str = ""
    description: str = ""
    old: str = ""
    new: str = ""
    text: str = ""

    def operations(self, components: dict[str, str]) -> list[dict]:
        """The harness operations this draft stands for: an append becomes a `write` of the whole new text, a tool
        the writes of its tool.toml and its script (a small model writing TOML inside JSON breaks its quoting)."""
        if self.op == "append":
            current = components.get(self.path, "").rstrip("\n")
            return [{"op": "write", "path": self.path, "text": f"{current}\n{self.text.strip()}\n".lstrip("\n")}]
        if self.op == "tool":
            if not PROGRAM_NAME.fullmatch(self.name):
                raise ValueError(f"a tool's name must be a command name, not {self.name!r}")
            if not self.text.strip():
                raise ValueError(f"the tool {self.name} has no script: its python3 code goes in `text`")
            return [
                {"op": "write", "path": path, "text": text}
                for path, text in tool_components(self.name, self.description, self.text).items()
            ]
        fields = {"replace": ("old", "new"), "write": ("text",), "delete": ()}[self.op]
        return [{"op": self.op, "path": self.path, **{name: getattr(self, name) for name in fields}}]


class EditDraft(BaseModel):
    rationale: str = ""
    prediction: str = ""
    ops: list[OpDraft] = Field(default_factory=list)


class ProposerReply(BaseModel):
    """What the proposer model answers."""

    edits: list[EditDraft]

    @model_validator(mode="before")
    @classmethod
    def _one_edit(cls, data: Any) -> Any:
        """Small models often answer with one bare edit, or a bare list of edits."""
        if isinstance(data, list):
            return {"edits": data}
        if isinstance(data, dict) and "edits" not in data and "ops" in data:
            return {"edits": [data]}
        return data


class Proposal(BaseModel):
    """One candidate edit as the ledger records it; `edit` is None when the draft was not a valid edit."""

    ops: list[dict]
    rationale: str = ""
    prediction: str = ""
    edit: Edit | None = None
    problem: str | None = None
    move: MoveKind = "proposer"
    """The move that made it (see `evolve/moves.py`)."""
    sources: list[str] = []
    """Train tasks the edit's examples came from: its gate leaves them out."""


class Proposer:
    def __init__(self, llm, config: SearchConfig, tryout: Tryout | None = None):
        self.llm = llm
        self.config = config
        self.standins = StandIns(llm, tryout, config.tool_attempts)

    def propose(
        self,
        pattern: Target,
        evidence: list[Evidence],
        harness: Harness,
        ledger: list[TriedEdit],
        feedback: list[TriedEdit] | None = None,
        seed: int = 0,
    ) -> list[Proposal]:
        """Candidate edits for `pattern` from its `evidence` (items of `pattern_evidence`); `ledger` holds the edits
        tried against it in earlier iterations, `feedback` the previous round's rejected edits with their reasons.
        A missing program is offered as the stand-in step says (see `StandIns.needs`); the model is shown those the
        harness lacks (`lacking`), while `pattern.missing_programs` stays what the pattern's failures missed."""
        needs = self.standins.needs(harness, pattern.missing_programs)
        if offered := self.offer(pattern, harness, ledger, feedback, seed, needs):
            return offered
        messages = templates.messages(
            "proposer",
            pattern=pattern,
            lacking=needs.missing,
            evidence=evidence,
            components=shown_components(harness),
            ledger=ledger[-LEDGER_SHOWN:],
            feedback=feedback or [],
            candidates=self.config.candidates,
        )
        reply = self.llm.complete("proposer", messages, output=ProposerReply, seed=seed)
        if reply.parsed is None:
            return [
                Proposal(
                    ops=[], problem=f"the proposer's reply was not a valid list of edits: {reply.error or 'no JSON'}"
                )
            ]
        drafts = reply.parsed.edits[: self.config.candidates]
        if not drafts:
            return [Proposal(ops=[], problem="the proposer proposed no edit")]
        return [self.proposal(draft, harness, seed * 10 + k, needs) for k, draft in enumerate(drafts)]

    def offer(
        self,
        pattern: Target,
        harness: Harness,
        ledger: list[TriedEdit],
        feedback: list[TriedEdit] | None = None,
        seed: int = 0,
        needs: Needs | None = None,
    ) -> list[Proposal]:
        """The stand-in step, without the proposer model: a tool for the program the pattern's failures missed most,
        when one is due (see `StandIns.offer`), its script written by the toolsmith; none when no tool is due. `needs`:
        what the harness lacks against the pattern, when already known."""
        needs = needs or self.standins.needs(harness, pattern.missing_programs)
        offer = self.standins.offer(needs, harness.hash, [*ledger, *(feedback or [])])
        if offer is None:
            return []
        draft = EditDraft(
            rationale=offer.rationale, prediction=offer.prediction, ops=[OpDraft(op="tool", name=offer.program)]
        )
        return [self.proposal(draft, harness, seed * 10, needs)]

    def proposal(self, draft: EditDraft, harness: Harness, seed: int, needs: Needs) -> Proposal:
        try:
            return to_proposal(self.with_scripts(draft, seed, needs), harness.components)
        except ValueError as e:
            return unusable(draft, str(e))

    def with_scripts(self, draft: EditDraft, seed: int, needs: Needs) -> EditDraft:
        """The draft with each tool script that is not python written by the toolsmith (see `StandIns.script`)."""
        ops = []
        for op in draft.ops:
            if op.op == "tool" and not scriptable(op.name):
                raise ValueError(
                    f"no script can stand in for {op.name} (interactive, or a service manager): tell the agent "
                    "what to use instead"
                )
            if op.op == "tool" and PROGRAM_NAME.fullmatch(op.name) and not compiles(op.text):
                if script := self.standins.script(op.name, needs, seed):
                    said = script.description if says_something(script.description, op.name) else op.description
                    op = op.model_copy(update={"text": script.text, "description": said})
            if op.op == "tool" and op.name not in needs.missing and not says_something(op.description, op.name):
                raise ValueError(
                    f"`{op.name}` is no program the agent ran, and the edit says nothing of what the tool does: the "
                    "agent would see it described as a program that is not installed; describe it, or supply a program "
                    "the agent ran"
                )
            ops.append(op)
        return draft.model_copy(update={"ops": ops})


def says_something(description: str, program: str) -> bool:
    """The description tells more than that `program` stands in for a program of that name (see `usage_line`)."""
    return usage_line(description, program) != usage_line("", program)


def to_proposal(draft: EditDraft, components: dict[str, str]) -> Proposal:
    try:
        ops = [operation for op in draft.ops for operation in op.operations(components)]
    except ValueError as e:
        return unusable(draft, str(e))
    proposal = Proposal(ops=ops, rationale=draft.rationale, prediction=draft.prediction)
    if not ops:
        proposal.problem = "the edit has no operations"
        return proposal
    try:
        proposal.edit = Edit.model_validate({"ops": ops, "rationale": draft.rationale, "prediction": draft.prediction})
    except ValidationError as e:
        proposal.problem = f"not a valid edit: {one_line(e)}"
    except UserError as e:
        proposal.problem = str(e)
    return proposal


def unusable(draft: EditDraft, problem: str) -> Proposal:
    """The ledger's record of a draft that is no edit, with why."""
    return Proposal(
        ops=[op.model_dump() for op in draft.ops],
        rationale=draft.rationale,
        prediction=draft.prediction,
        problem=problem,
    )


def shown_components(harness: Harness) -> dict[str, str]:
    """The components as the proposer sees them; a very long one is cut (a replace must quote text it can see), and
    when the worked examples together are longer than one component may be, each is one line naming its task."""
    examples = {example.path: example for example in harness.examples}
    stubbed = sum(len(harness.components[path]) for path in examples) > MAX_COMPONENT_CHARS
    return {
        path: (
            f"[a worked example of train task {examples[path].task} ({examples[path].source}), {len(text)} characters: "
            "write it whole or delete it]"
        )
        if stubbed and path in examples
        else text
        if len(text) <= MAX_COMPONENT_CHARS
        else text[:MAX_COMPONENT_CHARS] + "\n[... cut ...]"
        for path, text in harness.components.items()
    }
