"""The proposer: turns one promoted failure pattern into candidate edits of the harness.

It sees the pattern, its evidence from distinct tasks, the harness's components, and the ledger of edits
already tried against the pattern (with their verdicts and reasons). Its reply is a deliberately flat JSON
schema, because small models write messy JSON; a draft that is not a valid edit becomes an `invalid`
proposal in the ledger, never a crash.
"""

import re
from collections import Counter
from pathlib import PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, model_validator

from harness_evo.config import SearchConfig, one_line
from harness_evo.errors import UserError
from harness_evo.evolve import templates
from harness_evo.evolve.toolsmith import TOOL_COMMAND, Script, Toolsmith, Tryout, compiles, tool_components, usage_line
from harness_evo.failures.triage import MissingProgram, scriptable
from harness_evo.harness import Edit, Harness
from harness_evo.store import Edit as TriedEdit
from harness_evo.store import EditStatus

MAX_COMPONENT_CHARS = 3000
LEDGER_SHOWN = 8
PROGRAM_NAME = re.compile(r"[A-Za-z0-9][\w.+-]*")
SUPPLY_OFFERS = 3
"""Times a tool for one missing program is offered to one node while the toolsmith's scripts for it all fail."""


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
            return [{"op": "write", "path": path, "text": text} for path, text in tool_components(self.name, self.description, self.text).items()]
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


class Proposer:
    def __init__(self, llm, config: SearchConfig, tryout: Tryout | None = None):
        self.llm = llm
        self.config = config
        self.toolsmith = Toolsmith(llm, tryout, config.tool_attempts)

    def propose(self, pattern: dict, evidence: list[dict], harness: Harness, ledger: list[TriedEdit],
                feedback: list[TriedEdit] | None = None, seed: int = 0) -> list[Proposal]:
        """Candidate edits for `pattern` from its `evidence` (items of `pattern_evidence`); `ledger` holds the edits
        tried against it in earlier iterations, `feedback` the previous round's rejected edits with their reasons.
        A missing program the harness already supplies as a tool is not offered again, unless that tool crashed or
        fails the tryout on the agent's calls."""
        programs = pattern.get("missing_programs") or {}
        supplied = {tool.name for tool in harness.tools}
        standing = self.stand_ins(harness, programs)
        missing = {name: program.model_copy(update={"broken": program.broken or bool(standing[name].failures)}) if name in standing else program
                   for name, program in programs.items()}
        missing = {name: program for name, program in missing.items() if name not in supplied or program.broken}
        pattern = {**pattern, "missing_programs": missing}
        if draft := supply_draft(missing, harness.hash, [*ledger, *(feedback or [])]):
            return [self.proposal(draft, pattern, harness, seed * 10, standing)]
        messages = templates.messages(
            "proposer", pattern=pattern, evidence=evidence, components=shown_components(harness),
            ledger=ledger[-LEDGER_SHOWN:], feedback=feedback or [], candidates=self.config.candidates,
        )
        reply = self.llm.complete("proposer", messages, output=ProposerReply, seed=seed)
        if reply.parsed is None:
            return [Proposal(ops=[], problem=f"the proposer's reply was not a valid list of edits: {reply.error or 'no JSON'}")]
        drafts = reply.parsed.edits[: self.config.candidates]
        if not drafts:
            return [Proposal(ops=[], problem="the proposer proposed no edit")]
        return [self.proposal(draft, pattern, harness, seed * 10 + k, standing) for k, draft in enumerate(drafts)]

    def stand_ins(self, harness: Harness, programs: dict[str, MissingProgram]) -> dict[str, Script]:
        """The harness's own stand-in tools for `programs`, each tried on the agent's calls of its program: a run's
        accepted `sqlite3` listed the tables whatever the query, and crashed only on calls with three arguments."""
        if self.toolsmith.tryout is None:
            return {}
        tools = {tool.name: tool for tool in harness.tools if tool.command == TOOL_COMMAND}
        return {name: Script(text=script, description=tools[name].description, tried=self.toolsmith.tryout.run(name, script, program.calls))
                for name, program in programs.items() if name in tools and (script := harness.components.get(f"tools/{name}/tool.py"))}

    def proposal(self, draft: EditDraft, pattern: dict, harness: Harness, seed: int, standing: dict[str, Script]) -> Proposal:
        try:
            return to_proposal(self.with_scripts(draft, pattern, seed, standing), harness.components)
        except ValueError as e:
            return unusable(draft, str(e))

    def with_scripts(self, draft: EditDraft, pattern: dict, seed: int, standing: dict[str, Script]) -> EditDraft:
        """The draft with each tool script that is not python written by the toolsmith, from the calls that missed it
        (`seed` differs per draft: two drafts adding the same tool get two different scripts). A script that rewrites
        one of the harness's stand-ins (`standing`) must run every call it runs, and more: a run's rewrite of `sqlite3`
        ran the queries its tool ignored, and failed the `.tables` that the tool ran."""
        missing = pattern.get("missing_programs") or {}
        ops = []
        for op in draft.ops:
            if op.op == "tool" and not scriptable(op.name):
                raise ValueError(f"no script can stand in for {op.name} (interactive, or a service manager): tell the agent "
                                 "what to use instead")
            if op.op == "tool" and PROGRAM_NAME.fullmatch(op.name) and not compiles(op.text):
                calls = missing[op.name].calls if op.name in missing else {}
                kept = frozenset(standing[op.name].ran_calls) if op.name in standing else frozenset()
                script = self.toolsmith.script(op.name, calls, seed, kept)
                if script and script.tried and not script.ran:
                    raise ValueError(f"each script the toolsmith wrote for {op.name} failed the agent's calls: {script.failures[0]}")
                if script and (lost := sorted(kept - script.ran_calls)):
                    raise ValueError(f"the toolsmith's script for {op.name} fails a call the harness's tool runs: "
                                     f"{script.tried.get(lost[0]) or f'`{lost[0]}` was not tried'}")
                if script and op.name in standing and script.ran <= standing[op.name].ran:
                    raise ValueError(f"the toolsmith's script for {op.name} runs {script.ran} of the agent's calls, no more than the "
                                     f"harness's tool does: {(script.failures or ['it fails none'])[0]}")
                if script:
                    said = script.description if says_something(script.description, op.name) else op.description
                    op = op.model_copy(update={"text": script.text, "description": said})
            if op.op == "tool" and op.name not in missing and not says_something(op.description, op.name):
                raise ValueError(f"`{op.name}` is no program the agent ran, and the edit says nothing of what the tool does: the agent "
                                 "would see it described as a program that is not installed; describe it, or supply a program the agent ran")
            ops.append(op)
        return draft.model_copy(update={"ops": ops})


def supply_draft(missing: dict[str, MissingProgram], node: str, tried: list[TriedEdit]) -> EditDraft | None:
    """A tool for the program the most of the pattern's failed tasks ran without its being installed, when a script
    can stand in for it and no edit of `node` against the pattern has offered it yet (`tried`: ledger rows), or each
    offer was refused before any rollout (the toolsmith's scripts all failed; a new seed writes new ones), fewer than
    `SUPPLY_OFFERS` times. It is the
    one remedy measured to work on this pattern (a `sqlite3` tool took the sqlite tasks from 0 to 4 passes in 15), and
    the 1.5B proposer, told a script could stand in for `sqlite3` and not for `nano`, chose `nano` four times in a
    run. The toolsmith still writes the script."""
    offers = [(name, edit.status) for edit in tried if edit.parent_id == node for name in tool_names(edit.ops)]
    refused = Counter(name for name, status in offers if status is EditStatus.INVALID)
    done = {name for name, status in offers if status is not EditStatus.INVALID} | {name for name, n in refused.items() if n >= SUPPLY_OFFERS}
    program = next((program for program in missing.values() if program.scriptable and program.name not in done), None)
    if program is None:
        return None
    tasks = f"{len(program.tasks)} failed task{'s' * (len(program.tasks) > 1)} ran `{program.name}`"
    if program.broken:
        rationale = (f"{tasks}, and the harness's tool of that name fails their calls; a tool that does the program's work runs "
                     "them as they were written.")
        prediction = f"Commands that call `{program.name}` get what the program would print, and the tasks go on from there."
    else:
        rationale = f"{tasks}, which is not installed here; a tool of that name runs the agent's commands as they were written."
        prediction = f"Commands that stopped at `{program.name}: command not found` run, and the tasks go on from there."
    return EditDraft(rationale=rationale, prediction=prediction, ops=[OpDraft(op="tool", name=program.name)])


def says_something(description: str, program: str) -> bool:
    """The description tells more than that `program` stands in for a program of that name (see `usage_line`)."""
    return usage_line(description, program) != usage_line("", program)


def tool_names(ops: list[dict]) -> set[str]:
    """The tools an edit's operations (as the ledger holds them: drafts or harness operations) add or change."""
    paths = [PurePosixPath(op.get("path") or "").parts for op in ops]
    return {op["name"] for op in ops if op.get("op") == "tool"} | {parts[1] for parts in paths if len(parts) > 2 and parts[0] == "tools"}


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
    return Proposal(ops=[op.model_dump() for op in draft.ops], rationale=draft.rationale, prediction=draft.prediction, problem=problem)


def shown_components(harness: Harness) -> dict[str, str]:
    """The components as the proposer sees them; a very long one is cut (a replace must quote text it can see)."""
    return {path: text if len(text) <= MAX_COMPONENT_CHARS else text[:MAX_COMPONENT_CHARS] + "\n[... cut ...]"
            for path, text in harness.components.items()}
