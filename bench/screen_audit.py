"""What the screen (`search.screen`) would have made of the gated edits of a finished evolve run (a measurement, not a
test).

For each edit the run's gate decided, the screen looks as it would have before that gate: the solver's first action on
up to `--tasks` of the parent's failed train tasks (the pattern's first), sampled `--samples` times under the parent and
under the child with the same seeds, the run's own solver model answering. Prints each edit's screen verdict beside the
gate's, and the count the issue asks for: how many candidates the screen would drop, and how many of those the gate
accepted (what the screen would have lost). Model calls go through the response cache and are not recorded in the run.

    python bench/screen_audit.py runs/evolve-... [--tasks 4] [--samples 2]
"""

import argparse
import random
from pathlib import Path

from rich.console import Console
from rich.table import Table

from harness_evo import world
from harness_evo.config import RunConfig
from harness_evo.evolve.gate import Turn
from harness_evo.evolve.ledger import Candidate, Ledger
from harness_evo.evolve.nodes import Harnesses
from harness_evo.evolve.screen import Screen
from harness_evo.evolve.target import Target
from harness_evo.llm import LLM
from harness_evo.store import Edit, Pattern, RunStore
from harness_evo.taskset import load_suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--tasks", type=int, default=4, help="failed train tasks of the parent sampled per edit")
    parser.add_argument("--samples", type=int, default=2, help="seeds per task")
    args = parser.parse_args()
    store = RunStore(args.run)
    config = RunConfig.load(store.folder / "config.toml")
    if config.models.solver.model.startswith("scripted/world-"):
        world.register()  # the scripted world's runs (tests) answer with its solver
    train = load_suite(config.tasks, seed=config.seed).split("train")
    patterns = {pattern.id: pattern for pattern in store.records(Pattern)}
    gated = [edit for edit in store.records(Edit, order_by="iteration, id") if edit.gate is not None]
    table = Table("edit", "move", "screen", "first actions changed", "gate")
    would_drop = lost = saved = 0
    with LLM(config.models) as llm:
        harnesses = Harnesses(store)
        ledger = Ledger(store, lambda event: None)
        screen = Screen(
            "audit", args.tasks, args.samples, llm, store, {t.id: t for t in train}, harnesses.__getitem__, ledger
        )
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
                f"{seen.changed}/{seen.samples}" if seen.samples else seen.note,
                ("accepted" if edit.gate.accepted else "rejected") + f" ({edit.gate.rollouts} rollouts)",
            )
    console = Console()
    console.print(table)
    console.print(
        f"gated edits: {len(gated)}; the screen would drop {would_drop}, of which the gate accepted {lost}; "
        f"their gates ran {saved} child rollouts"
    )


if __name__ == "__main__":
    main()
