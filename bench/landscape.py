"""The landscape: which single changes of a harness move its pass rate (a measurement, not a test).

Writes one variant of the harness per lever, each the harness plus one change, and compares them all with it on the
same (task, trial) keys with `harness-evo compare` (rollouts any run already has are reused, so the landscape can be
run in pieces: an interrupted comparison keeps its rollouts, and `--recorded` prints the table of what runs have so
far). The levers: a lower temperature, workspace discovery, the loop guard, the confirm-done question, the system
prompt without its longest paragraph, and (with `--examples HARNESS`) a harness with worked examples, e.g. one a run's
harvest made.

    python bench/landscape.py --out landscape [--split dev] [--trials 3] [--rows temperature,discovery]
        [--examples runs/evolve-.../harnesses/HASH] [--recorded]
"""

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from harness_evo import cli, world
from harness_evo.evolve.prune import text_parts
from harness_evo.harness import Edit, Harness
from harness_evo.harness.settings_edit import setting_edit

ROOT = Path(__file__).parents[1]


def setting(section: str, key: str, value: bool | int | float | str) -> Callable[[Harness], Edit]:
    def change(harness: Harness) -> Edit:
        return setting_edit(harness.components["harness.toml"], section, key, value)

    return change


def without_longest_paragraph(harness: Harness) -> Edit:
    """The system prompt without its longest paragraph (one the prune move could remove)."""
    found = text_parts("prompts/system.md.j2", harness.components["prompts/system.md.j2"])
    paragraphs = [part for part in found if part.description.startswith("the paragraph")]
    if not paragraphs:
        raise SystemExit("the system prompt has no paragraph a prune could remove")
    longest = min(paragraphs, key=lambda part: len(part.edit.ops[0].text))
    return longest.edit


LEVERS: dict[str, Callable[[Harness], Edit]] = {
    "temperature": setting("model", "temperature", 0.3),
    "discovery": setting("agent", "discovery", True),
    "loop-guard": setting("agent", "loop_guard", True),
    "confirm-done": setting("agent", "confirm_done", True),
    "shorter-system": without_longest_paragraph,
}
"""Row -> the change of the harness it measures."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--harness", type=Path, default=ROOT / "harnesses" / "bash-agent")
    parser.add_argument("--tasks", type=Path, default=ROOT / "tasks" / "core")
    parser.add_argument("--out", type=Path, required=True, help="folder the variants are written to")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--rows", default=",".join(LEVERS), help=f"levers, comma-separated, of {', '.join(LEVERS)}")
    parser.add_argument("--examples", type=Path, help="a harness with worked examples: one row more")
    parser.add_argument("--model", help="the solver (default: the compare command's)")
    parser.add_argument("--runs", type=Path, default=ROOT / "runs")
    parser.add_argument("--recorded", action="store_true", help="run nothing: the table of the keys recorded so far")
    args = parser.parse_args()
    rows = [row for row in args.rows.split(",") if row]
    if unknown := [row for row in rows if row not in LEVERS]:
        raise SystemExit(f"unknown rows {', '.join(unknown)}; known: {', '.join(LEVERS)}")
    base = Harness.load(args.harness)
    variants = []
    for row in rows:
        folder = args.out / row
        if not folder.exists():
            base.apply(LEVERS[row](base)).save(folder)
        variants.append(folder)
        print(f"{row}: {folder}")
    if args.examples:
        variants.append(args.examples)
        print(f"examples: {args.examples}")
    if args.model and args.model.startswith("scripted/world-"):
        world.register()  # the scripted world's solver (the tiny run of tests/test_bench.py)
    command = ["compare", str(args.harness), *map(str, variants), "--tasks", str(args.tasks), "--split", args.split]
    command += ["--trials", str(args.trials), "--runs", str(args.runs), "--all"]
    command += ["--model", args.model] if args.model else []
    command += ["--recorded"] if args.recorded else []
    print("harness-evo " + " ".join(command), flush=True)
    sys.argv = ["harness-evo", *command]
    cli.main()


if __name__ == "__main__":
    main()
