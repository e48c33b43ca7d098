"""Supplying a missing program as a tool: which programs an edit of a harness may supply, the one offered without
asking the proposer model, the toolsmith's script for it, and the tasks a tool edit is for."""

from collections import Counter
from collections.abc import Mapping
from pathlib import PurePosixPath

from pydantic import BaseModel

from harness_evo.harness import Harness
from harness_evo.standins.missing import MissingProgram
from harness_evo.standins.toolsmith import TOOL_COMMAND, Script, Toolsmith, Tryout
from harness_evo.store import Edit, EditStatus

SUPPLY_OFFERS = 3
"""Times a tool for one missing program is offered to one node while the toolsmith's scripts for it all fail."""


class Needs(BaseModel):
    """What a harness lacks against one pattern."""

    missing: dict[str, MissingProgram] = {}
    """The pattern's missing programs the harness has no tool for, or whose tool crashed or fails a call of the
    agent's, the program the most tasks missed first."""
    standing: dict[str, Script] = {}
    """The harness's own stand-in tools for the pattern's missing programs, each tried on the agent's calls."""


class Offer(BaseModel):
    """A tool to add without asking the proposer model, and why."""

    program: str
    rationale: str
    prediction: str


class StandIns:
    """The stand-in step as the proposer calls it; `tryout` runs each script on the agent's calls, `attempts` bounds
    the scripts the toolsmith writes for one tool."""

    def __init__(self, llm, tryout: Tryout | None = None, attempts: int = 1):
        self.toolsmith = Toolsmith(llm, tryout, attempts)

    def needs(self, harness: Harness, programs: Mapping[str, MissingProgram]) -> Needs:
        """What `harness` lacks of `programs` (a pattern's missing programs): a program it already supplies as a tool
        is not offered again, unless that tool crashed or fails the tryout on the agent's calls."""
        supplied = {tool.name for tool in harness.tools}
        standing = self.standing(harness, programs)
        missing = {
            name: program.model_copy(update={"broken": program.broken or bool(standing[name].failures)})
            if name in standing
            else program
            for name, program in programs.items()
        }
        return Needs(
            missing={name: program for name, program in missing.items() if name not in supplied or program.broken},
            standing=standing,
        )

    def standing(self, harness: Harness, programs: Mapping[str, MissingProgram]) -> dict[str, Script]:
        """The harness's own stand-in tools for `programs`, each tried on the agent's calls of its program (none
        without a tryout): a tool that was accepted may still fail calls the gate never met."""
        if self.toolsmith.tryout is None:
            return {}
        tools = {tool.name: tool for tool in harness.tools if tool.command == TOOL_COMMAND}
        return {
            name: Script(
                text=script,
                description=tools[name].description,
                tried=self.toolsmith.tryout.run(name, script, program.calls),
            )
            for name, program in programs.items()
            if name in tools and (script := harness.components.get(f"tools/{name}/tool.py"))
        }

    def offer(self, needs: Needs, node: str, tried: list[Edit]) -> Offer | None:
        """A tool for the program the most of the pattern's failed tasks ran without its being installed, when a script
        can stand in for it and no edit of `node` against the pattern has offered it yet (`tried`: the ledger's edits),
        or each offer was refused before any rollout (the toolsmith's scripts all failed; a new seed writes new ones),
        fewer than `SUPPLY_OFFERS` times. Supplying the program is the remedy that fits, and a small proposer model does
        not reliably choose it. The toolsmith still writes the script."""
        offers = [(name, edit.status) for edit in tried if edit.parent_id == node for name in tool_names(edit.ops)]
        refused = Counter(name for name, status in offers if status is EditStatus.INVALID)
        done = {name for name, status in offers if status is not EditStatus.INVALID} | {
            name for name, n in refused.items() if n >= SUPPLY_OFFERS
        }
        program = next(
            (program for program in needs.missing.values() if program.scriptable and program.name not in done), None
        )
        if program is None:
            return None
        tasks = f"{len(program.tasks)} failed task{'s' * (len(program.tasks) > 1)} ran `{program.name}`"
        if program.broken:
            rationale = (
                f"{tasks}, and the harness's tool of that name fails their calls; a tool that does the program's work "
                "runs them as they were written."
            )
            prediction = (
                f"Commands that call `{program.name}` get what the program would print, and the tasks go on from there."
            )
        else:
            rationale = (
                f"{tasks}, which is not installed here; a tool of that name runs the agent's commands as they were "
                "written."
            )
            prediction = (
                f"Commands that stopped at `{program.name}: command not found` run, and the tasks go on from there."
            )
        return Offer(program=program.name, rationale=rationale, prediction=prediction)

    def script(self, program: str, needs: Needs, seed: int) -> Script | None:
        """The toolsmith's script standing in for `program`, from the calls that missed it (`seed` differs per draft:
        two drafts adding the same tool get two different scripts); None when the model wrote no python. A script that
        rewrites one of the harness's stand-ins must run every call that one runs, and more. ValueError says why no
        script will do."""
        calls = needs.missing[program].calls if program in needs.missing else {}
        kept = frozenset(needs.standing[program].ran_calls) if program in needs.standing else frozenset()
        script = self.toolsmith.script(program, calls, seed, kept)
        if script and script.tried and not script.ran:
            raise ValueError(
                f"each script the toolsmith wrote for {program} failed the agent's calls: {script.failures[0]}"
            )
        if script and (lost := sorted(kept - script.ran_calls)):
            raise ValueError(
                f"the toolsmith's script for {program} fails a call the harness's tool runs: "
                f"{script.tried.get(lost[0]) or f'`{lost[0]}` was not tried'}"
            )
        if script and program in needs.standing and script.ran <= needs.standing[program].ran:
            raise ValueError(
                f"the toolsmith's script for {program} runs {script.ran} of the agent's calls, no more than the "
                f"harness's tool does: {(script.failures or ['it fails none'])[0]}"
            )
        return script


def supplied_tasks(parent: Harness, child: Harness, missing: Mapping[str, MissingProgram]) -> set[str]:
    """The tasks a tool that `child` adds or rewrites over `parent` is for: those that failed for want of its program,
    or because its tool crashed (`missing`: the pattern's missing programs)."""
    paths = child.changed_paths(parent)
    changed = {tool.name for tool in child.tools if any(path.startswith(f"tools/{tool.name}/") for path in paths)}
    return {task for program in changed if program in missing for task in missing[program].tasks}


def tool_names(ops: list[dict]) -> set[str]:
    """The tools an edit's operations (as the ledger holds them: drafts or harness operations) add or change."""
    paths = [PurePosixPath(op.get("path") or "").parts for op in ops]
    return {op["name"] for op in ops if op.get("op") == "tool"} | {
        parts[1] for parts in paths if len(parts) > 2 and parts[0] == "tools"
    }
