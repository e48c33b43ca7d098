"""What the screen (`search.screen`) makes of edits: the gated edits of a finished evolve run, or given children of a
harness and every part a prune could remove from it (a measurement, not a test).

For each edit, the screen looks as it would before a gate: the solver's first action on up to `--tasks` of the
parent's failed train tasks (the pattern's first), sampled `--samples` times under the parent and under the child with
the same seeds, the run's own solver model answering. Model calls go through the response cache and are not recorded
in the run.

An evolve run: prints each gated edit's screen verdict beside the gate's, and how many candidates the screen would
drop and how many of those the gate accepted (what the screen would have lost).

An eval run with train rollouts of a harness (`--children` and/or `--prune`): prints the verdict on each child folder
(for example the landscape's variants, whose effect `compare` measured) and on each prune candidate of the harness,
and how many of them the screen would drop.

    python bench/screen_audit.py runs/evolve-... [--tasks 4] [--samples 2]
    python bench/screen_audit.py runs/eval-... [--children DIR ...] [--prune] [--tasks 4] [--samples 2]
"""

import argparse
import random
from pathlib import Path

from rich.console import Console
from rich.table import Table

from harness_evo import world
from harness_evo.config import RunConfig
from harness_evo.evolve.critic import Critic
from harness_evo.evolve.gate import Turn
from harness_evo.evolve.ledger import Candidate, Ledger
from harness_evo.evolve.nodes import Harnesses
from harness_evo.evolve.prune import parts
from harness_evo.evolve.screen import Screen
from harness_evo.evolve.target import Target
from harness_evo.harness import Harness
from harness_evo.llm import LLM
from harness_evo.store import Edit, Pattern, Rollout, RunStore, ScreenResult
from harness_evo.taskset import Task, load_suite


def changed(seen: ScreenResult) -> str:
    """The table's "first actions changed" cell: changed of sampled, or why the screen could not tell."""
    return f"{seen.changed}/{seen.samples}" if seen.samples else seen.note


def gated_edits(store: RunStore, screen: Screen, harnesses: Harnesses) -> None:
    """The screen's verdict on each edit the evolve run in `store` gated, beside the gate's."""
    patterns = {pattern.id: pattern for pattern in store.records(Pattern)}
    gated = [edit for edit in store.records(Edit, order_by="iteration, id") if edit.gate is not None]
    table = Table("edit", "move", "screen", "first actions changed", "gate")
    would_drop = lost = saved = 0
    for edit in gated:
        pattern = patterns.get(edit.pattern_id or "")
        target = Target.of(pattern, {}) if pattern else None
        turn = Turn(edit.iteration, edit.parent_id, target, random.Random(0))
        candidate = Candidate(edit=edit, child=harnesses[edit.child_id], target=target)
        seen = screen.look(harnesses[edit.parent_id], candidate, screen.failed(turn))
        inert = seen.verdict == "inert"
        would_drop += inert
        lost += inert and edit.gate.accepted
        saved += edit.gate.rollouts if inert else 0
        table.add_row(
            edit.id,
            edit.move,
            seen.verdict,
            changed(seen),
            ("accepted" if edit.gate.accepted else "rejected") + f" ({edit.gate.rollouts} rollouts)",
        )
    console = Console()
    console.print(table)
    console.print(
        f"gated edits: {len(gated)}; the screen would drop {would_drop}, of which the gate accepted {lost}; "
        f"their gates ran {saved} child rollouts"
    )


def children(
    store: RunStore, screen: Screen, critic: Critic, parent: Harness, folders: list[Path], prune: bool
) -> None:
    """The screen's verdict on each harness of `folders` and (with `prune`) each prune candidate of `parent` the
    critic's rules pass (as in a run, where the screen sees no other), as children of `parent`, on its failed train
    rollouts in `store`."""
    node = parent.hash
    if not any(store.records(Rollout, harness_hash=node, split="train")):
        raise SystemExit(f"{store.folder} has no train rollout of the harness {parent.short_hash}: nothing to look at")
    named = [(str(folder), "given", Harness.load(folder)) for folder in folders]
    rejected = 0
    for part in parts(parent) if prune else []:
        judgement = critic.judge(parent, part.edit, None)
        if judgement.status != "passed":
            rejected += 1
        else:
            named.append((part.description, "prune", judgement.child))
    failed = screen.failed(Turn(0, node, None, random.Random(0)))
    table = Table("child", "move", "screen", "first actions changed")
    verdicts = []
    for k, (name, move, child) in enumerate(named):
        edit = Edit(id=f"c{k}", iteration=0, parent_id=node, child_id=child.hash, move=move)
        seen = screen.look(parent, Candidate(edit=edit, child=child), failed)
        verdicts.append(seen.verdict)
        table.add_row(name, move, seen.verdict, changed(seen))
    console = Console()
    console.print(table)
    console.print(
        f"children: {len(named)}; the screen would drop {verdicts.count('inert')}, pass on "
        f"{verdicts.count('changed')} as changed and {verdicts.count('unseen')} it cannot tell; "
        f"prune candidates the critic's rules reject before the screen: {rejected}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--tasks", type=int, default=4, help="failed train tasks of the parent sampled per edit")
    parser.add_argument("--samples", type=int, default=2, help="seeds per task")
    parser.add_argument("--children", type=Path, nargs="*", default=[], help="harness folders (with an eval run)")
    parser.add_argument("--prune", action="store_true", help="every prune candidate of the harness (with an eval run)")
    args = parser.parse_args()
    store = RunStore(args.run)
    config = RunConfig.load(store.folder / "config.toml")
    if config.kind not in ("evolve", "eval") or (config.kind == "evolve") == bool(args.children or args.prune):
        raise SystemExit("give an evolve run alone, or an eval run with --children and/or --prune")
    if config.models.solver.model.startswith("scripted/world-"):
        world.register()  # the scripted world's runs (tests) answer with its solver
    train: dict[str, Task] = {task.id: task for task in load_suite(config.tasks, seed=config.seed).split("train")}
    with LLM(config.models) as llm:
        harnesses = Harnesses(store)
        ledger = Ledger(store, lambda event: None)
        screen = Screen("audit", args.tasks, args.samples, llm, store, train, harnesses.__getitem__, ledger)
        if config.kind == "evolve":
            gated_edits(store, screen, harnesses)
        else:
            critic = Critic(config.search, list(train.values()))
            children(store, screen, critic, Harness.load(config.harness), args.children, args.prune)


if __name__ == "__main__":
    main()
