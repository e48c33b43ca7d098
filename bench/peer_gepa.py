"""GEPA side by side (a benchmark, not a test): the same harness, suite split, models and rollout budget for each of
1. GEPA (`gepa.optimize`, its own engine) through `harness_evo.gepa_adapter`; its valset is our dev split,
2. harness-evo's `evolve` with dev scoring, its budget in rollouts,
3. random search: the same loop with every edit accepted (acceptance rule `none`); its result is the node with the
   best dev score, as GEPA picks from its valset (harness-evo's is the node a paired dev test confirmed over the start),
then every resulting harness and the start are scored with `compare` on the test split (seen by neither optimizer),
3 trials, against the start; one table shows the result (pass@1, the gain over the start, the solver's tokens a
rollout).

Each piece is a run folder under `--runs` (peer-gepa/SETTING/PIECE/) and, once finished, a JSON result under `--out`
(SETTING/PIECE.json, with the resulting harness's components), so a later run computes only the missing pieces;
`--resume` continues pieces whose run was interrupted. SETTING names the suite, the harness, the budget and a hash of
everything else that decides the result (the suite's and the harness's contents, the models, the settings that are not
at their default).

    python bench/peer_gepa.py [--tasks tasks/core] [--harness harnesses/bash-agent] [--budget 200] [--model M]
        [--optimizer-model M] [--config base.toml] [--quick] [--resume] [--no-random-search] [--out DIR]
        [--runs DIR]
    python bench/peer_gepa.py --table bench/results/peer_gepa/SETTING     # the table of a finished setting
"""

import hashlib
import json
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import gepa
import typer
from rich.console import Console
from rich.table import Table

from harness_evo import stats
from harness_evo.agent.session import session as open_session
from harness_evo.cli import configured, optimizer, stop_like_ctrl_c
from harness_evo.compare import LETTERS, Contender, planned, run_compare
from harness_evo.config import SMALL_MODEL, RunConfig
from harness_evo.errors import HarnessError, UserError
from harness_evo.evolve import session
from harness_evo.evolve.budget import time_spent
from harness_evo.evolve.session import dev_tasks
from harness_evo.evolve.tree import SearchTree
from harness_evo.gepa_adapter import FileLog, HarnessAdapter, ProposerLM
from harness_evo.harness import Harness
from harness_evo.store import Node, Rollout, RunStatus, RunStore
from harness_evo.store.info import EvolutionSummary
from harness_evo.taskset import load_suite, suite_digest
from harness_evo.views.evaluation import RolloutProgress
from harness_evo.views.evolution import EvolutionView

ROOT = Path(__file__).parents[1]
SYSTEMS = ("start", "GEPA", "harness-evo", "random search")
PIECES = {"GEPA": "gepa", "harness-evo": "harness-evo", "random search": "random-search"}
"""System -> the name of its piece (its run folder and result file)."""
RULES = {"harness-evo": "sign-test", "random search": "none"}
"""Acceptance rule of each evolve piece."""
GATES = {"random search": "in-turn"}
"""Gate of an evolve piece that needs one (`search.gate`): an acceptance rule is the in-turn gate's; harness-evo gates
as `--config` says (the evidence engine by default)."""
TEST_TRIALS = 3
UNBOUNDED = {"budget.max_iterations": 1_000_000, "budget.max_wall_s": 30 * 24 * 3600.0}
"""The evolve pieces stop on their rollout budget (or patience), never on iterations or wall time."""
QUICK = {"budget": 20, "dev_sample": 4}
"""--quick: the small solver, 20 rollouts per optimizer and 4 dev tasks (GEPA's valset too)."""
REFLECTION_MINIBATCH = 3
"""GEPA's default minibatch (`reflection_minibatch_size`), fewer when the train split is smaller."""

app = typer.Typer(add_completion=False)
console = Console()


class Bench:
    """One setting of the bench: the resolved configuration, the starting harness and where its pieces live."""

    def __init__(self, config: RunConfig, budget: int, out: Path, runs: Path, resume: bool):
        self.config = config.with_options({"budget.max_rollouts": budget, **UNBOUNDED})
        self.budget, self.resume = budget, resume
        self.harness = Harness.load(self.config.harness)
        self.suite = load_suite(self.config.tasks, seed=self.config.seed)
        self.name = setting(self.config, self.harness, budget)
        self.results = out / self.name
        self.runs = runs / "peer-gepa" / self.name

    def piece(
        self, name: str, compute: Callable[[Path], dict[str, Any]], valid: Callable[[dict], bool] = lambda r: True
    ) -> dict:
        """The result of a piece: its JSON when a finished run wrote it, else `compute(runs_dir)`, then written."""
        path = self.results / f"{name}.json"
        if path.is_file() and valid(found := json.loads(path.read_text())):
            console.print(f"[dim]{name}: the result in {path}[/dim]")
            return found
        result = compute(self.runs / name)
        self.results.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
        return result

    def open_run(self, runs_dir: Path, create: Callable[[], RunStore]) -> RunStore:
        """The piece's run: the interrupted one with --resume, else a new one (an interrupted run is never dropped)."""
        existing = sorted(path for path in runs_dir.glob("*") if (path / "run.db").is_file())
        if existing and not self.resume:
            raise UserError(
                f"{existing[-1]} holds an interrupted run of this piece; pass --resume to continue it, or "
                "delete it to start the piece over"
            )
        return RunStore(existing[-1]) if existing else create()


def setting(config: RunConfig, harness: Harness, budget: int) -> str:
    """The folder name of a setting: suite, harness, budget and a hash of what else decides the result. Settings at
    their default are left out, as the code is: a new setting added at its default keeps every setting's name."""
    suite = load_suite(config.tasks, seed=config.seed)
    decisive = {
        "suite": suite_digest(suite),
        "harness": harness.hash,
        "budget": budget,
        "config": config.model_dump(mode="json", exclude={"harness", "tasks", "kind"}, exclude_defaults=True),
    }
    digest = hashlib.sha256(json.dumps(decisive, sort_keys=True).encode()).hexdigest()[:8]
    return f"{suite.name}-{harness.name}-{budget}r-{digest}"


def spend(store: RunStore) -> dict[str, Any]:
    """Rollouts and, per role, model calls and tokens (cache hits included: what the system asked for) of a run."""
    calls = {
        role: {"calls": spent.calls, "tokens": spent.tokens_in + spent.tokens_out}
        for role, spent in store.spend().items()
    }
    return {"run": store.id, "folder": str(store.folder), "rollouts": store.count(Rollout), "calls": calls}


def run_gepa(bench: Bench, runs_dir: Path) -> dict[str, Any]:
    """GEPA's engine on the train split, its valset our dev tasks, `max_metric_calls` the rollout budget."""
    config = bench.config
    store = bench.open_run(runs_dir, lambda: RunStore.create(runs_dir, "gepa"))
    train, dev = bench.suite.split("train"), dev_tasks(bench.suite, config)
    started, before = time.monotonic(), time_spent(store, 0.0)
    console.print(
        f"GEPA: run {store.folder}, {bench.budget} metric calls (rollouts), valset = the dev split ({len(dev)} tasks)"
    )
    try:
        with RolloutProgress(bench.budget, console) as progress, open_session(store, config, progress.update) as run:
            adapter = HarnessAdapter(run.executor, config.failures.trace_token_budget)
            result = gepa.optimize(
                seed_candidate=bench.harness.components,
                trainset=train,
                valset=dev,
                adapter=adapter,
                reflection_lm=ProposerLM(run.llm),
                max_metric_calls=bench.budget,
                seed=config.seed,
                reflection_minibatch_size=min(REFLECTION_MINIBATCH, len(train)),
                run_dir=str(store.folder / "gepa"),
                logger=FileLog(store.folder / "gepa" / "log.txt"),
                track_best_outputs=False,
            )
    finally:
        store.emit("clock", elapsed_s=before + time.monotonic() - started)
    best = result.best_candidate
    evaluated = len(store.tally(Rollout, "harness_hash"))
    facts = {
        **spend(store),
        "system": "GEPA",
        "components": best,
        "hash": Harness(best).hash,
        "metric_calls": result.total_metric_calls,
        "candidates": result.num_candidates,
        "evaluated": evaluated,
        "best_dev": result.val_aggregate_scores[result.best_idx],
        "wall_s": round(time_spent(store, 0.0), 1),
    }
    store.set_status(
        RunStatus.FINISHED,
        finished=time.time(),
        summary={key: facts[key] for key in ("rollouts", "candidates", "best_dev")},
    )
    return facts


def run_evolve(bench: Bench, system: str, runs_dir: Path) -> dict[str, Any]:
    """harness-evo's loop at the rollout budget, with the acceptance rule of `system`."""
    gate = GATES.get(system, bench.config.search.gate)
    config = bench.config.with_options({"acceptance.rule": RULES[system], "search.gate": gate})
    store = bench.open_run(runs_dir, lambda: session.start(config, runs_dir, harness=bench.harness))
    console.print(
        f"{system}: run {store.folder}, {bench.budget} rollouts, {gate} gate, acceptance rule {RULES[system]}"
    )
    with session.owned(store), EvolutionView(console, quiet=True) as view:
        summary = session.run(store, [view])
    tree = SearchTree(store.records(Node))
    best = result_node(system, tree, summary)
    return {
        **spend(store),
        "system": system,
        "components": Harness.load(store.folder / "harnesses" / best).components,
        "hash": best,
        "kept_start": best == summary.root,
        "best_at_rollouts": scored_by(store, best, summary.root),
        "best_dev": tree.node(best).dev_score,
        "start_dev": summary.start_dev,
        "wall_s": summary.elapsed_s,
    }


def result_node(system: str, tree: SearchTree, summary: EvolutionSummary) -> str:
    """harness-evo's result is the node its paired dev test confirmed over the start (the start when none was);
    random search's is the node with the best dev score, as GEPA picks from its valset."""
    return summary.best_node if system == "harness-evo" else tree.highest_dev()


def scored_by(store: RunStore, node: str, root: str) -> int:
    """Rollouts the run had paid for when `node` was scored on dev (0 for the starting harness)."""
    if node == root:
        return 0
    rollouts = store.records(Rollout)
    done = max(
        (row.finished for row in rollouts if row.harness_hash == node and row.split == "dev" and row.finished),
        default=None,
    )
    return 0 if done is None else sum(1 for row in rollouts if row.finished is not None and row.finished <= done)


def contenders(harnesses: dict[str, Harness]) -> tuple[list[Contender], dict[str, str]]:
    """One contender per distinct harness, the start first; and each system's letter (equal harnesses share one)."""
    found: dict[str, Contender] = {}
    for system, harness in harnesses.items():
        found.setdefault(harness.hash, Contender(LETTERS[len(found)], system, harness))
    return list(found.values()), {system: found[harness.hash].letter for system, harness in harnesses.items()}


def score_on_test(bench: Bench, harnesses: dict[str, Harness], runs_dir: Path) -> dict[str, Any]:
    """`compare` of every system's harness against the start on the test split, `TEST_TRIALS` trials."""
    found, letters = contenders(harnesses)
    config = bench.config.with_options({"kind": "compare", "split": "test", "executor.trials": TEST_TRIALS})
    console.print(
        f"test: compare of {len(found)} distinct harnesses on the test split x {TEST_TRIALS} trials, under {runs_dir}"
    )
    runs_dir.mkdir(parents=True, exist_ok=True)
    with RolloutProgress(planned(config, found), console) as progress:
        facts = run_compare(config, found, runs_dir, on_progress=progress.update)
    return {
        "letters": letters,
        "hashes": {system: harness.hash for system, harness in harnesses.items()},
        **facts.model_dump(mode="json"),
    }


def load_components(result: dict[str, Any]) -> Harness:
    try:
        return Harness(result["components"])
    except HarnessError as e:
        raise UserError(f"the {result['system']} result does not load as a harness: {e}") from e


def run_bench(bench: Bench, random_search: bool = True) -> tuple[dict[str, dict], dict]:
    """Every piece (each from its result file when one is there), then the test scores; without `random_search`, its
    piece is left out (adding it later pays only for its own run and its test rollouts)."""
    results = {"GEPA": bench.piece(PIECES["GEPA"], lambda runs_dir: run_gepa(bench, runs_dir))}
    for system in [system for system in RULES if random_search or system != "random search"]:
        results[system] = bench.piece(
            PIECES[system], lambda runs_dir, system=system: run_evolve(bench, system, runs_dir)
        )
    harnesses = {"start": bench.harness, **{system: load_components(result) for system, result in results.items()}}
    hashes = {system: harness.hash for system, harness in harnesses.items()}
    test = bench.piece(
        "test",
        lambda runs_dir: score_on_test(bench, harnesses, runs_dir),
        valid=lambda found: found.get("hashes") == hashes,
    )
    return results, test


# --- the table --------------------------------------------------------------------------------------------------------


def rate(facts: dict[str, Any]) -> stats.Rate:
    return stats.rate(facts["passed"], facts["n"])


def gain(test: dict[str, Any], system: str) -> dict[str, Any] | None:
    """compare's paired result of `system` against the start; None when it is the start's harness."""
    letter = test["letters"][system]
    return next((row for row in test["comparisons"] if row["b"] == letter), None)


def gain_text(row: dict[str, Any] | None) -> str:
    if row is None:
        return "0 (the start's harness)"
    return f"{stats.pp(row['diff'])} [{stats.pp(row['low'])}, {stats.pp(row['high'])}] (n={row['n']})"


def tokens_text(test: dict[str, Any], system: str) -> str:
    """The solver's tokens a rollout of `system` on test, and against the start's on the keys both scored (a one-sided
    sign test of being the cheaper); "-" for a test piece recorded before tokens were."""
    rows = {row["letter"]: row for row in test["harnesses"]}
    mine, start = (rows[test["letters"][name]].get("tokens_per_rollout") for name in (system, "start"))
    if not mine:
        return "-"
    if system == "start" or (row := gain(test, system)) is None:
        return f"{mine:,.0f}"
    differing = row.get("b_cheaper", 0) + row.get("a_cheaper", 0)
    p = row.get("cost_p")
    return f"{mine:,.0f} ({mine / start - 1:+.0%});\ncheaper on {row.get('b_cheaper', 0)} of {differing} keys" + (
        f", p = {p:.2g}" if p is not None else ""
    )


def calls_text(calls: dict[str, dict[str, int]]) -> str:
    return "\n".join(f"{role} {row['calls']} calls, {tokens(row['tokens'])} tok" for role, row in calls.items()) or "-"


def tokens(n: int) -> str:
    return f"{n / 1e6:.1f}M" if n >= 1e6 else f"{n / 1e3:.0f}k" if n >= 1e3 else str(n)


def minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}m {seconds % 60:02.0f}s"


def table(results: dict[str, dict], test: dict[str, Any]) -> Table:
    passes = {row["letter"]: row["pass_at_1"] for row in test["harnesses"]}
    grid = Table(
        title=f"GEPA side by side: test split, {test['tasks']} tasks x {test['trials']} trials, against the start"
    )
    for column in (
        "system",
        "test pass@1 [95%]",
        "gain over start [95%]",
        "test tokens / rollout",
        "rollouts",
        "model calls and tokens by role",
        "wall",
    ):
        grid.add_column(column, justify="right" if column in ("rollouts", "wall") else "left")
    for system in [system for system in SYSTEMS if system in test["letters"]]:
        score = str(rate(passes[test["letters"][system]]))
        if system == "start":
            grid.add_row(system, score, "-", tokens_text(test, system), "-", "-", "-")
            continue
        result = results[system]
        used = f"{result['rollouts']}" + (f"\n{result['evaluated']} harnesses" if system == "GEPA" else "")
        grid.add_row(
            system,
            score,
            gain_text(gain(test, system)),
            tokens_text(test, system),
            used,
            calls_text(result["calls"]),
            minutes(result["wall_s"]),
        )
    return grid


def ratio_line(test: dict[str, Any]) -> str:
    """harness-evo's test gain over GEPA's (point estimates), when GEPA gained anything."""
    ours, theirs = (row["diff"] if (row := gain(test, system)) else 0.0 for system in ("harness-evo", "GEPA"))
    if theirs <= 0:
        return (
            f"harness-evo's gain / GEPA's: undefined, GEPA's test gain is {stats.pp(theirs)} (harness-evo's "
            f"{stats.pp(ours)})"
        )
    return f"harness-evo's gain / GEPA's: {ours / theirs:.2f} ({stats.pp(ours)} / {stats.pp(theirs)}, point estimates)"


def reach_line(results: dict[str, dict], test: dict[str, Any]) -> str:
    """The rollouts harness-evo needed to reach GEPA's final test score, as far as the test scores recorded tell: only
    the start and harness-evo's final harness were scored on test, so a node before its final one is not measured."""
    score = {
        system: rate({row["letter"]: row["pass_at_1"] for row in test["harnesses"]}[test["letters"][system]]).value
        for system in ("start", "GEPA", "harness-evo")
    }
    evo = results["harness-evo"]
    if None in score.values():
        return (
            "rollouts harness-evo needed to reach GEPA's final test score: not measured (a harness has no scored test "
            "rollout)"
        )
    if score["start"] >= score["GEPA"]:
        return "rollouts harness-evo needed to reach GEPA's final test score: 0 (the start already scores as well)"
    if score["harness-evo"] >= score["GEPA"]:
        return (
            f"rollouts harness-evo needed to reach GEPA's final test score: at most {evo['best_at_rollouts']} of its "
            f"{evo['rollouts']} (when its final harness was scored on dev; earlier nodes were not measured on test)"
        )
    return f"rollouts harness-evo needed to reach GEPA's final test score: not reached in {evo['rollouts']} rollouts"


def report(results: dict[str, dict], test: dict[str, Any]) -> None:
    console.print(table(results, test))
    gepa_run = results["GEPA"]
    console.print(
        f"GEPA's valset is the dev split: it selects its best candidate there, as designed (dev score "
        f"{gepa_run['best_dev']:.0%}); the test split was seen by neither optimizer."
    )
    console.print(
        f"GEPA's pool took {gepa_run['candidates'] - 1} of its proposals (better on their minibatch, then scored on "
        f"the valset); {gepa_run['evaluated']} distinct harnesses, the start and its proposals, ran through "
        f"harness-evo's executor in {gepa_run['rollouts']} rollouts for its {gepa_run['metric_calls']} metric calls (a "
        "key already run is not run again)."
    )
    if "random search" in results:
        console.print(
            "random search: harness-evo's loop accepting every edit that reaches the gate (acceptance rule none; "
            "the gate's rollouts are still paid); its result is the node with the best dev score "
            f"({results['random search']['best_dev']:.0%} against the start's "
            f"{results['random search']['start_dev']:.0%}), with no test of the difference."
        )
    else:
        console.print(
            "random search: not run (--no-random-search); run again without it to add its row, the other pieces "
            "and their test rollouts are reused."
        )
    console.print(ratio_line(test))
    console.print(reach_line(results, test))


def finished(folder: Path) -> tuple[dict[str, dict], dict[str, Any]]:
    """The results of a finished setting's folder (SETTING under --out): each system's piece that is there, and the test
    scores."""
    results = {
        system: json.loads(path.read_text())
        for system, piece in PIECES.items()
        if (path := folder / f"{piece}.json").is_file()
    }
    if not {"GEPA", "harness-evo"} <= results.keys() or not (folder / "test.json").is_file():
        raise UserError(f"{folder} holds no finished setting: it needs gepa.json, harness-evo.json and test.json")
    return results, json.loads((folder / "test.json").read_text())


@app.command()
def main(
    tasks: Annotated[Path, typer.Option(help="The task suite; its train/dev/test splits are used as they are.")] = ROOT
    / "tasks"
    / "core",
    harness: Annotated[Path, typer.Option(help="The starting harness of every system.")] = ROOT
    / "harnesses"
    / "bash-agent",
    budget: Annotated[
        int | None,
        typer.Option(min=1, help="Rollouts per optimizer (GEPA's max_metric_calls); default 200, 20 with --quick."),
    ] = None,
    model: Annotated[str | None, typer.Option(help="The solver's model, the same for every system.")] = None,
    optimizer_model: Annotated[
        str | None,
        typer.Option(help="The analyzer's, proposer's and critic's model; GEPA reflects with the proposer's."),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(help="A run configuration (config.toml) every piece starts from; the options above override it."),
    ] = None,
    quick: Annotated[
        bool,
        typer.Option(
            help=f"A smoke run: solver {SMALL_MODEL}, {QUICK['budget']} rollouts, {QUICK['dev_sample']} dev tasks."
        ),
    ] = False,
    resume: Annotated[
        bool,
        typer.Option(help="Continue the pieces whose run was interrupted, instead of refusing to start them again."),
    ] = False,
    out: Annotated[Path, typer.Option(help="Where each finished piece writes its result.")] = ROOT
    / "bench"
    / "results"
    / "peer_gepa",
    runs: Annotated[Path, typer.Option(help="Where the pieces' run folders go (under peer-gepa/).")] = ROOT / "runs",
    random_search: Annotated[
        bool,
        typer.Option(
            help="Run the random-search baseline; without it, its row is left out and can be added by a later run."
        ),
    ] = True,
    table_of: Annotated[
        Path | None,
        typer.Option(
            "--table",
            help="Print the table of a finished setting's results folder (SETTING under --out) and run nothing.",
        ),
    ] = None,
) -> None:
    """Run GEPA, harness-evo and random search at one rollout budget from one harness, and score them on test."""
    try:
        if table_of:
            report(*finished(table_of))
            return
        base = RunConfig.load(config) if config else RunConfig()
        options = {"search.dev_sample": QUICK["dev_sample"] if quick else None}
        base = configured(
            base.with_options(options),
            "evolve",
            {
                "harness": harness,
                "tasks": tasks,
                "models.solver.model": model or (SMALL_MODEL if quick else None),
                **optimizer(optimizer_model),
            },
        )
        bench = Bench(base, budget or (QUICK["budget"] if quick else 200), out, runs, resume)
        console.print(
            f"setting {bench.name}: {bench.suite.name} ({len(bench.suite.split('train'))} train, "
            f"{len(dev_tasks(bench.suite, bench.config))} dev, {len(bench.suite.split('test'))} test tasks), "
            f"solver {bench.config.models.solver.model}, proposer {bench.config.models.proposer.model}"
        )
        report(*run_bench(bench, random_search))
        console.print(
            f"[dim]results in {bench.results}, runs in {bench.runs}; the response cache is shared, so a later piece "
            "may find model replies an earlier one paid for (calls count cache hits; wall time does not).[/dim]"
        )
    except UserError as e:
        console.print(f"[red]{e}[/red]")
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        console.print("[yellow]stopped; run again with --resume to continue where it stopped[/yellow]")
        raise typer.Exit(130) from None


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, stop_like_ctrl_c)
    app()
