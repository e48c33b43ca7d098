"""The `harness-evo` command: parses arguments, calls the library, renders the result. Nothing else."""

import errno
import signal
import sys
import traceback
from functools import partial
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from harness_evo.config import RunConfig, option_help
from harness_evo.errors import UserError
from harness_evo.redaction import redact

app = typer.Typer(
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    help="Evolve an LLM agent's harness (prompts, tools, skills) from its own recurring failures.",
)
sandbox_app = typer.Typer(no_args_is_help=True, help="Sandbox images and leftover containers.")
serve_app = typer.Typer(no_args_is_help=True, help="Model servers for open-weight models.")
import_app = typer.Typer(no_args_is_help=True, help="Turn a harness of another format into a harness folder.")
app.add_typer(sandbox_app, name="sandbox")
app.add_typer(serve_app, name="serve")
app.add_typer(import_app, name="import")

console = Console()
err_console = Console(stderr=True)

INTERRUPTED = 130
RunsDir = Annotated[Path, typer.Option("--runs", help="Folder that holds the run folders.")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print the facts as JSON (for scripts) instead of the view.")]
RunArg = Annotated[str, typer.Argument(help="The run folder or its id (a unique prefix will do).")]
ExecutorBackend = Annotated[
    str | None, typer.Option("--executor", help=option_help("executor.backend"), show_default=False)
]
RayAddress = Annotated[
    str | None, typer.Option("--ray-address", help=option_help("executor.address"), show_default=False)
]
BaseHarness = Annotated[
    Path | None,
    typer.Option(
        "--base",
        help="Harness that gives what the source has no place for (prompts, "
        "settings); default harnesses/bash-agent, not needed for harness-evo's exports.",
    ),
]


def main() -> None:
    """Entry point: user errors become one line on stderr, Ctrl-C a short notice; our bugs still show a traceback. None
    of them shows a secret of the environment (see `redaction`)."""
    signal.signal(signal.SIGTERM, stop_like_ctrl_c)
    try:
        app()
    except UserError as e:
        err_console.print(f"[red]error:[/red] {escape(redact(str(e)))}", markup=True, highlight=False, soft_wrap=True)
        sys.exit(2)
    except OSError as e:
        if e.errno != errno.ENOSPC:
            sys.stderr.write(redact(traceback.format_exc()))
            sys.exit(1)
        err_console.print(
            f"[red]error:[/red] no space left on the disk (writing {escape(str(e.filename or 'a file'))}); what "
            "finished is kept: free some space, then run the command again (`harness-evo resume RUN` continues "
            "an evolution run)",
            markup=True,
            highlight=False,
            soft_wrap=True,
        )
        sys.exit(2)
    except Exception as e:
        if not caused_by_ctrl_c(e):
            sys.stderr.write(redact(traceback.format_exc()))
            sys.exit(1)
        say_interrupted()
        sys.exit(INTERRUPTED)
    except SystemExit as e:
        if e.code == INTERRUPTED:  # typer turns Ctrl-C into this exit code
            say_interrupted()
        raise


def say_interrupted() -> None:
    err_console.print(
        "interrupted; finished work is kept in the run folder (`harness-evo resume RUN` continues an "
        "evolution run; `eval` or `compare` run again reuses the finished rollouts)"
    )


def caused_by_ctrl_c(error: BaseException | None) -> bool:
    """Whether Ctrl-C is behind `error`: a library that was calling our code when it came (pydantic's serializers)
    raises its own error from the KeyboardInterrupt."""
    while error is not None:
        if isinstance(error, KeyboardInterrupt):
            return True
        error = error.__cause__ or error.__context__
    return False


def stop_like_ctrl_c(signum: int, frame: object) -> None:
    """SIGTERM cleans up exactly as Ctrl-C does: sandboxes removed, finished work kept."""
    raise KeyboardInterrupt


OPTIMIZER_ROLES = ("analyzer", "proposer", "critic")
"""The roles `--optimizer-model` sets."""
COMPARE_TRIALS = 3
"""Trials per task of `compare` when neither `--trials` nor its `--config` says: fewer rarely tell harnesses apart."""
ConfigFile = Annotated[Path | None, typer.Option("--config", help="A run configuration TOML; options override it.")]


def load_config(config_file: Path | None) -> RunConfig:
    """The configuration in `config_file`, or the built-in one."""
    return RunConfig.load(config_file) if config_file else RunConfig()


def configured(config: RunConfig, kind: str, options: dict[str, object]) -> RunConfig:
    """`config` as a run of `kind` with each command-line option given set over it: the one place options meet a
    configuration. Keys are dotted fields (`executor.workers`); None is an option not given."""
    return config.with_options({"kind": kind, **options})


def optimizer(model: str | None) -> dict[str, object]:
    """`--optimizer-model` as options: the model of the analyzer, proposer and critic."""
    return {f"models.{role}.model": model for role in OPTIMIZER_ROLES}


@app.command("eval")
def eval_command(
    harness: Annotated[Path | None, typer.Option(help=option_help("harness"), show_default=False)] = None,
    tasks: Annotated[Path | None, typer.Option(help=option_help("tasks"), show_default=False)] = None,
    split: Annotated[
        str | None, typer.Option(help="train, dev, test or all (default: dev).", show_default=False)
    ] = None,
    trials: Annotated[int | None, typer.Option(min=1, help=option_help("executor.trials"), show_default=False)] = None,
    model: Annotated[str | None, typer.Option(help=option_help("models.solver.model"), show_default=False)] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help=option_help("executor.workers"), show_default=False)
    ] = None,
    sandbox: Annotated[str | None, typer.Option(help=option_help("sandbox.backend"), show_default=False)] = None,
    executor: ExecutorBackend = None,
    ray_address: RayAddress = None,
    agent: Annotated[str | None, typer.Option(help=option_help("agent"), show_default=False)] = None,
    seed: Annotated[int | None, typer.Option(help=option_help("seed"), show_default=False)] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Do not answer model calls from the response cache.")
    ] = False,
    config_file: ConfigFile = None,
    runs: RunsDir = Path("runs"),
) -> None:
    """Score a harness on a split of a task suite; rollouts any run already has are reused. Writes a run folder."""
    import time

    from harness_evo.agent.evaluate import planned, run_eval
    from harness_evo.agent.executor import reach
    from harness_evo.views.evaluation import RolloutProgress, eval_table

    config = configured(
        load_config(config_file),
        "eval",
        {
            "harness": harness,
            "tasks": tasks,
            "split": split,
            "seed": seed,
            "agent": agent,
            "sandbox.backend": sandbox,
            "executor.workers": workers,
            "executor.trials": trials,
            "models.solver.model": model,
            "executor.backend": executor,
            "executor.address": ray_address,
            "models.cache": False if no_cache else None,
        },
    )
    started = time.time()
    warn_skipped(config)
    reach(config.executor)
    with RolloutProgress(planned(config), console=console) as progress:
        result = run_eval(config, runs, on_progress=progress.update)
    console.print(eval_table(result, started))


@app.command("compare")
def compare_command(
    harnesses: Annotated[
        list[str],
        typer.Argument(
            help="Harness folders or run nodes (RUN = its best node, RUN:root, RUN:HASH); "
            "each is compared with the first.",
            show_default=False,
        ),
    ],
    tasks: Annotated[Path | None, typer.Option(help=option_help("tasks"), show_default=False)] = None,
    split: Annotated[
        str | None, typer.Option(help="train, dev, test or all (default: dev).", show_default=False)
    ] = None,
    trials: Annotated[
        int | None,
        typer.Option(
            help=f"Trials per task (the same keys for every harness; default: the config's "
            f"executor.trials if it sets them, else {COMPARE_TRIALS}).",
            show_default=False,
        ),
    ] = None,
    model: Annotated[str | None, typer.Option(help=option_help("models.solver.model"), show_default=False)] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help=option_help("executor.workers"), show_default=False)
    ] = None,
    sandbox: Annotated[str | None, typer.Option(help=option_help("sandbox.backend"), show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the facts as JSON instead of the tables.")] = False,
    recorded: Annotated[
        bool,
        typer.Option(
            "--recorded",
            help="Run nothing: compare on the keys runs already have for "
            "every harness (an interrupted comparison, so far).",
        ),
    ] = False,
    every_task: Annotated[
        bool, typer.Option("--all", help="List every task, not only those the harnesses differ on.")
    ] = False,
    config_file: ConfigFile = None,
    runs: RunsDir = Path("runs"),
) -> None:
    """Run harnesses on identical (task, trial) keys and tell, with intervals and a paired test, whether each differs
    from the first; rollouts any run already has are reused. Writes a run folder."""
    from harness_evo.compare import contenders, planned, run_compare
    from harness_evo.views import compare as view
    from harness_evo.views.evaluation import RolloutProgress

    if trials is not None and trials < 1:
        raise UserError(f"--trials {trials}: pass at least 1 (3 or more tell harnesses apart)")
    found = contenders(harnesses, runs)
    base = load_config(config_file)
    default_trials = base.executor.trials if "trials" in base.executor.model_fields_set else COMPARE_TRIALS
    config = configured(
        base,
        "compare",
        {
            "tasks": tasks,
            "split": split,
            "sandbox.backend": sandbox,
            "executor.workers": workers,
            "executor.trials": trials or default_trials,
            "models.solver.model": model,
        },
    )
    warn_skipped(config)
    with RolloutProgress(planned(config, found), console=err_console if as_json else console) as progress:
        facts = run_compare(config, found, runs, on_progress=progress.update, recorded=recorded)
    print_view(facts, None if as_json else partial(view.render, every_task=every_task))


@app.command("patterns")
def patterns_command(
    run: Annotated[str, typer.Argument(help="The run folder or its id.")],
    pattern: Annotated[str | None, typer.Argument(help="A pattern id (e.g. P3): show its evidence.")] = None,
    as_json: JsonFlag = False,
    evidence: Annotated[int, typer.Option(min=1, help="Member traces shown for one pattern, from distinct tasks.")] = 3,
    runs: RunsDir = Path("runs"),
) -> None:
    """The failure patterns of a run (support = distinct tasks), or one pattern with its evidence."""
    from harness_evo.views import patterns as view

    store = open_run(run, runs)
    if pattern is None:
        print_view(view.collect_all(store), None if as_json else lambda rows: view.render_all(rows, store.id))
    else:
        print_view(view.collect_one(store, pattern, evidence), None if as_json else view.render_one)


@app.command("analyze")
def analyze_command(
    run: Annotated[str, typer.Argument(help="The eval run folder or its id.")],
    model: Annotated[
        str | None, typer.Option(help="Analyzer model (litellm name or local/...); default: the run's.")
    ] = None,
    all_splits: Annotated[
        bool, typer.Option("--all-splits", help="Also explain dev and test failures (diagnosis only).")
    ] = False,
    runs: RunsDir = Path("runs"),
) -> None:
    """Triage, explain and group the failed rollouts of an eval run into failure patterns (written to its run.db)."""
    from rich.progress import Progress

    from harness_evo.failures.analysis import analyze_run, eval_rollouts

    store = open_run(run, runs)
    rollouts = eval_rollouts(store)
    with Progress(console=console) as progress:
        bar = progress.add_task("analyzing failed rollouts", total=len(rollouts))
        counted = analyze_run(store, rollouts, model, all_splits, on_rollout=lambda _: progress.advance(bar))
    if counted:
        console.print(
            f"{counted} failures of dev/test tasks were counted, not explained (`--all-splits` explains them)"
        )
    patterns_command(store.id, runs=store.folder.parent)


@app.command("evolve")
def evolve_command(
    harness: Annotated[Path | None, typer.Option(help=option_help("harness"), show_default=False)] = None,
    tasks: Annotated[Path | None, typer.Option(help=option_help("tasks"), show_default=False)] = None,
    model: Annotated[str | None, typer.Option(help=option_help("models.solver.model"), show_default=False)] = None,
    optimizer_model: Annotated[
        str | None, typer.Option(help="Model of the analyzer, proposer and critic; default: the embedded model.")
    ] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help=option_help("executor.workers"), show_default=False)
    ] = None,
    budget_rollouts: Annotated[
        int | None, typer.Option(min=1, help=option_help("budget.max_rollouts"), show_default=False)
    ] = None,
    budget_minutes: Annotated[
        float | None, typer.Option(min=0.1, help="Stop after this much wall time (default: 15).")
    ] = None,
    iterations: Annotated[
        int | None, typer.Option(min=1, help=option_help("budget.max_iterations"), show_default=False)
    ] = None,
    patience: Annotated[
        int | None, typer.Option(min=1, help=option_help("budget.patience"), show_default=False)
    ] = None,
    seed: Annotated[int | None, typer.Option(help=option_help("seed"), show_default=False)] = None,
    sandbox: Annotated[str | None, typer.Option(help=option_help("sandbox.backend"), show_default=False)] = None,
    executor: ExecutorBackend = None,
    ray_address: RayAddress = None,
    source: Annotated[
        str | None, typer.Option("--from", help="Fork: start from a node of this run (with its settings).")
    ] = None,
    node: Annotated[str | None, typer.Option(help="With --from: the node (a hash prefix, or `best`).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="Plain progress lines instead of the live view.")] = False,
    config_file: ConfigFile = None,
    runs: RunsDir = Path("runs"),
) -> None:
    """Evolve a harness on the train split of a suite; the best node (by dev score) is the result."""
    from harness_evo.evolve import session

    options = {
        "harness": harness,
        "tasks": tasks,
        "seed": seed,
        "models.solver.model": model,
        "executor.workers": workers,
        "executor.backend": executor,
        "executor.address": ray_address,
        "sandbox.backend": sandbox,
        **budgets(budget_rollouts, budget_minutes, iterations, patience),
        **optimizer(optimizer_model),
    }
    if source:
        origin = session.find_run(source, runs)
        store = session.fork(
            origin, node or "best", runs, configured(session.load_run_config(origin), "evolve", options)
        )
    elif node:
        raise UserError("--node needs --from RUN (the run whose node to start from)")
    else:
        store = session.start(configured(load_config(config_file), "evolve", options), runs)
    warn_skipped(session.load_run_config(store))
    with session.owned(store):
        run_evolution(store, quiet)


@app.command("resume")
def resume_command(
    run: Annotated[str, typer.Argument(help="The run folder or its id.")],
    budget_rollouts: Annotated[int | None, typer.Option(min=1, help="New rollout budget of the whole run.")] = None,
    budget_minutes: Annotated[
        float | None, typer.Option(min=0.1, help="New wall-time budget of the whole run, its time so far included.")
    ] = None,
    iterations: Annotated[int | None, typer.Option(min=1, help="New iteration budget of the whole run.")] = None,
    patience: Annotated[
        int | None, typer.Option(min=1, help="New patience: stop after this many iterations without an accepted edit.")
    ] = None,
    allow_changed_suite: Annotated[
        bool,
        typer.Option(
            "--allow-changed-suite",
            help="Resume even though the run's task suite "
            "changed since it started (the changed suite becomes the run's).",
        ),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="Plain progress lines instead of the live view.")] = False,
    runs: RunsDir = Path("runs"),
) -> None:
    """Continue an evolution run that was stopped or killed, or give one that finished on a budget more of it; finished
    rollouts and model calls are not paid again. A run whose task suite changed is refused unless told."""
    from harness_evo.evolve import preflight, session

    store = session.find_run(run, runs)
    with session.owned(store):
        changes = session.check_suite(store, allow_changed=allow_changed_suite)
        if changes:
            console.print(f"resuming on the changed task suite ({changes})", markup=False, highlight=False)
        session.raise_budget(store, budgets(budget_rollouts, budget_minutes, iterations, patience))
        preflight.check_resume(store)
        run_evolution(store, quiet)


def budgets(
    rollouts: int | None, minutes: float | None, iterations: int | None, patience: int | None
) -> dict[str, object]:
    """The budget options of `evolve` and `resume` as fields of the configuration."""
    return {
        "budget.max_rollouts": rollouts,
        "budget.max_wall_s": minutes * 60 if minutes is not None else None,
        "budget.max_iterations": iterations,
        "budget.patience": patience,
    }


def run_evolution(store, quiet: bool) -> None:
    """Run the evolution with the live view, or plain progress lines with `quiet` or when the output is no terminal
    (piped to a log file, say); the summary either way."""
    from harness_evo.evolve import session
    from harness_evo.views.evolution import EvolutionView, next_steps, summary_panel

    config_file = store.folder / "config.toml"
    if config_file.exists() and load_config(config_file).sandbox.backend == "local":
        err_console.print(
            "note: the sandbox is local, so the code of the edits this run tries (the tools it writes) runs on "
            "this machine (under bubblewrap, when installed: the host read-only, no network); `--sandbox docker` "
            "runs it in containers",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    try:
        with EvolutionView(console, quiet=quiet or not console.is_terminal) as view:
            summary = session.run(store, [view])
    except UserError:
        raise
    except Exception as e:  # a bug of ours: what finished is recorded, so say how to go on instead of a traceback
        crash_log = store.folder / "crash.log"
        crash_log.write_text(redact(traceback.format_exc()))
        message = (redact(str(e)).strip().splitlines() or ["no message"])[0][:200]
        raise UserError(
            f"the run stopped on an unexpected error ({type(e).__name__}: {message}); what finished is kept, "
            f"the traceback is in {crash_log}; `harness-evo resume {store.folder.name}` continues"
        ) from e
    console.print(summary_panel(summary))
    console.print(next_steps(summary, str(store.folder)), soft_wrap=True, markup=False, highlight=False)


@app.command("models")
def models_command(
    config_file: Annotated[
        Path | None, typer.Option("--config", help="A run configuration TOML; default: the built-in one.")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Which model serves each role, whether the embedded models are installed, and which model servers run."""
    from harness_evo.views import models as view

    print_view(view.collect(load_config(config_file).models), None if as_json else view.render)


@app.command("config")
def config_command(
    defaults: Annotated[bool, typer.Option("--defaults", help="The built-in configuration.")] = False,
    config_file: Annotated[
        Path | None, typer.Option("--config", help="A run configuration TOML: it, with every setting it leaves out.")
    ] = None,
    markdown: Annotated[
        bool, typer.Option("--markdown", help="A markdown page (docs/configuration.md) instead of TOML.")
    ] = False,
    harness: Annotated[
        bool, typer.Option("--harness", help="With --defaults: a harness's settings (harness.toml) instead of a run's.")
    ] = False,
) -> None:
    """Print a run configuration with every setting and what it does, as a TOML file to start from."""
    from harness_evo.configdoc import as_markdown, as_toml, harness_defaults

    if defaults == (config_file is not None):
        raise UserError("pass --defaults (the built-in configuration) or --config FILE (one of yours), one of them")
    if harness:
        if not defaults or markdown:
            raise UserError("--harness prints a new harness's settings as TOML: pass it with --defaults alone")
        print(as_toml(harness_defaults()), end="")
        return
    config = RunConfig() if defaults else load_config(config_file)
    print((as_markdown if markdown else as_toml)(config), end="")


@serve_app.command("vllm")
def serve_vllm_command(
    model: Annotated[str, typer.Option(help="The Hugging Face model to serve, e.g. Qwen/Qwen2.5-Coder-7B-Instruct.")],
    port: Annotated[int | None, typer.Option(help="Port on 127.0.0.1; default: a free one.")] = None,
    gpu_memory_utilization: Annotated[float, typer.Option(help="Share of GPU memory vLLM may take.")] = 0.9,
    tensor_parallel_size: Annotated[int, typer.Option(help="GPUs the model is split across.")] = 1,
    max_model_len: Annotated[int | None, typer.Option(help="Context length; default: the model's own.")] = None,
) -> None:
    """Start a vLLM OpenAI-compatible server and keep it running until Ctrl-C."""
    from harness_evo.config import VllmConfig
    from harness_evo.llm import ModelUnavailable, vllm

    config = VllmConfig(
        gpu_memory_utilization=gpu_memory_utilization,
        tensor_parallel_size=tensor_parallel_size,
        max_model_len=max_model_len,
    )
    console.print(f"starting vLLM for {model} (loading the weights may take minutes)")
    server = None
    try:
        server = vllm.start(model, config, port)
        console.print(f"model: vllm/{model}", highlight=False)
        console.print(f"base URL: {server.url}/v1", highlight=False)
        console.print(
            f'in a run configuration: [models.solver] model = "vllm/{model}", '
            f'params = {{api_base = "{server.url}/v1"}}',
            highlight=False,
            markup=False,
        )
        console.print("Ctrl-C stops it.")
        status = server.process.wait()
    except ModelUnavailable as e:
        err_console.print(f"[red]error:[/red] {e}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        if server is not None:
            server.stop()
        console.print("vLLM stopped")
        return
    err_console.print(
        f"[red]error:[/red] vLLM exited with status {status}; {server.tail()}", highlight=False, soft_wrap=True
    )
    server.stop()
    raise typer.Exit(1)


@sandbox_app.command("prune")
def sandbox_prune_command(
    run: Annotated[
        str | None, typer.Option(help="Only the containers of this run id (its process running or not).")
    ] = None,
    every: Annotated[
        bool, typer.Option("--all", help="Also the containers of runs whose process is still running here.")
    ] = False,
    ray_address: Annotated[
        str | None,
        typer.Option(
            "--ray-address",
            help="On every node of this Ray cluster that offers "
            "`docker` instead of this machine (auto, ray://HOST:PORT or HOST:PORT).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Remove the containers harness-evo left behind: those of runs whose process is gone (a run still going here keeps
    its own, unless --all or --run names it). A new run removes the first kind on its own, and a container stops by
    itself when its lifetime is over."""
    from harness_evo.sandbox.docker import LABEL, connect, listed, prune, prune_orphans

    if ray_address is None:
        client = connect()
        removed = prune(client, **({f"{LABEL}.run": run} if run else {})) if run or every else prune_orphans(client)
        kept = (
            ""
            if run or every
            else f"; kept {len(listed(client, [LABEL]))} of runs still going here (--all removes them too)"
        )
        console.print(f"removed {removed} container{'' if removed == 1 else 's'}{kept}")
        return
    from harness_evo.agent import ray_runner

    address = RunConfig().with_options({"executor.address": ray_address}).executor.address
    for node, removed in ray_runner.prune_cluster(ray_runner.connect(address), run).items():
        console.print(f"{node}: removed {removed} container{'' if removed == 1 else 's'}", highlight=False)


@sandbox_app.command("build-base")
def sandbox_build_base_command(
    force: Annotated[bool, typer.Option("--force", help="Build it again even when it exists.")] = False,
    tag: Annotated[str | None, typer.Option(help="Image tag. [default: the configured base image]")] = None,
) -> None:
    """Build the base image from sandboxes/base with debootstrap and `docker import` (no registry needed)."""
    from harness_evo.config import SandboxConfig
    from harness_evo.sandbox.docker import connect
    from harness_evo.sandbox.images import build_base

    tag = tag or SandboxConfig().base_image
    client = connect()
    with console.status(f"building {tag} from Debian packages (debootstrap; a few minutes)"):
        built = build_base(client, tag, force=force)
    console.print(f"built {tag}" if built else f"{tag} is already there (--force builds it again)", highlight=False)


def warn_skipped(config: RunConfig) -> None:
    """Say, before a run starts, which task folders of its suite could not be loaded."""
    from harness_evo.taskset import load_suite
    from harness_evo.views.tasks import skipped_line

    if skipped := load_suite(config.tasks, seed=config.seed).skipped:
        err_console.print(f"[yellow]{escape(skipped_line(skipped))}[/yellow]", highlight=False, soft_wrap=True)


def print_view(facts, view) -> None:
    """`view` is a function rendering the facts (a record, or a list of them);
    with --json their dump is printed instead."""
    import json

    if view is None:
        dumped = (
            [fact.model_dump(mode="json") for fact in facts]
            if isinstance(facts, list)
            else facts.model_dump(mode="json")
        )
        print(json.dumps(dumped, indent=1, default=str))
    else:
        console.print(view(facts))


def open_run(run: str, runs: Path):
    from harness_evo.store import RunStore

    return RunStore.find(run, runs)


@app.command("runs")
def runs_command(as_json: JsonFlag = False, runs: RunsDir = Path("runs")) -> None:
    """Every run under the runs folder: kind, status, start, duration, best dev score, spend."""
    from harness_evo.views import runs as view

    print_view(view.collect(runs), None if as_json else lambda facts: view.render(facts, runs))


@app.command("show")
def show_command(run: RunArg, as_json: JsonFlag = False, runs: RunsDir = Path("runs")) -> None:
    """What a run did: starting vs best harness, scores over iterations, spend by role, failure patterns."""
    from harness_evo.views import show as view

    print_view(view.collect(open_run(run, runs)), None if as_json else view.render)


@app.command("tree")
def tree_command(run: RunArg, as_json: JsonFlag = False, runs: RunsDir = Path("runs")) -> None:
    """The search tree: each node's train and dev scores, the edit that made it, its rejected children."""
    from harness_evo.views import tree as view

    print_view(view.collect(open_run(run, runs)), None if as_json else view.render)


@app.command("edits")
def edits_command(
    run: RunArg,
    edit: Annotated[
        str | None, typer.Argument(help="One edit's id: show it whole (ops, prediction, reasons, gate).")
    ] = None,
    status: Annotated[
        str | None,
        typer.Option(help="Only edits with this status (accepted, rejected_static, rejected_empirical, invalid)."),
    ] = None,
    pattern: Annotated[str | None, typer.Option(help="Only edits against this failure pattern (e.g. P3).")] = None,
    last: Annotated[int, typer.Option(min=0, help="Show only the latest N edits (0: all of them).")] = 100,
    as_json: JsonFlag = False,
    runs: RunsDir = Path("runs"),
) -> None:
    """The ledger of proposed edits: pattern, verdict, the critic's reasons and the gate's counts."""
    from harness_evo.views import edits as view

    store = open_run(run, runs)
    if edit:
        print_view(view.one(store, edit), None if as_json else view.render_one)
    else:
        print_view(view.collect(store, status=status, pattern=pattern, last=last), None if as_json else view.render)


@app.command("diff")
def diff_command(
    run: RunArg,
    a: Annotated[str, typer.Argument(help="A node: a hash prefix, `root` or `best`.")],
    b: Annotated[str, typer.Argument(help="Another node, shown as the new side.")],
    as_json: JsonFlag = False,
    runs: RunsDir = Path("runs"),
) -> None:
    """The components that differ between two harness versions of a run, as unified diffs."""
    from harness_evo.views import diff as view

    print_view(view.collect(open_run(run, runs), a, b), None if as_json else view.render)


@app.command("rollout")
def rollout_command(
    run: RunArg,
    rollout: Annotated[str, typer.Argument(help="The rollout's id (a unique prefix will do).")],
    full: Annotated[bool, typer.Option("--full", help="Show whole outputs and the model's replies.")] = False,
    as_json: JsonFlag = False,
    runs: RunsDir = Path("runs"),
) -> None:
    """One rollout step by step: action, output, exit code, time; then the verifier's output and the failure record."""
    from harness_evo.views import rollout as view

    print_view(
        view.collect(open_run(run, runs), rollout), None if as_json else lambda facts: view.render(facts, full=full)
    )


@app.command("watch")
def watch_command(
    run: RunArg,
    interval: Annotated[float, typer.Option(min=0.1, help="Seconds between refreshes.")] = 1.0,
    as_json: JsonFlag = False,
    runs: RunsDir = Path("runs"),
) -> None:
    """Follow a run that another process is writing, until it stops running (Ctrl-C stops watching, not the run)."""
    from rich.live import Live

    from harness_evo.views import watch as view

    store = open_run(run, runs)
    if as_json:
        print_view(view.collect(store), None)
        return
    try:
        with Live(console=console, auto_refresh=False) as live:
            for frame in view.frames(store, interval):
                live.update(frame, refresh=True)
    except KeyboardInterrupt:
        console.print("stopped watching; the run goes on")


@app.command("tasks")
def tasks_command(
    folder: Annotated[Path, typer.Argument(help="A task folder, or a suite: a folder of task folders.")],
    split: Annotated[str | None, typer.Option(help="Only the tasks of train, dev or test.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the stratified split when the suite has no suite.toml.")] = 0,
    as_json: JsonFlag = False,
) -> None:
    """A suite's tasks with their splits and categories, and the task folders that could not be loaded and why."""
    from harness_evo.taskset import load_suite
    from harness_evo.views import tasks as view

    print_view(view.collect(load_suite(folder, seed=seed), split), None if as_json else view.render)


@app.command("harvest")
def harvest_command(
    run: RunArg,
    out: Annotated[Path, typer.Option("--out", help="The harness folder to write (new or empty).")],
    node: Annotated[
        str, typer.Option(help="`best`, `root`, or a node's hash prefix: the harness whose rollouts are harvested.")
    ] = "root",
    shown: Annotated[int, typer.Option(min=1, help="`[agent] examples` to set when the harness shows none.")] = 2,
    runs: RunsDir = Path("runs"),
) -> None:
    """A harness with worked examples (`examples/`) made from the passed train rollouts of a run:
    one per solved task."""
    from harness_evo.evolve.harvest import harvest_into
    from harness_evo.evolve.nodes import harness_of, resolve_node

    store = open_run(run, runs)
    node_id = resolve_node(store, node)
    tasks = load_config(store.folder / "config.toml").tasks
    harvested = harvest_into(store, harness_of(store, node_id), out, tasks, shown)
    console.print(
        f"wrote {out} with {len(harvested.sources)} worked example(s), from passed train rollouts of "
        f"{', '.join(harvested.sources)}",
        highlight=False,
    )


@app.command("export")
def export_command(
    source: Annotated[
        str, typer.Argument(help="A harness folder, or a run (its folder or id; a unique prefix will do).")
    ],
    out: Annotated[
        Path, typer.Option("--out", help="Folder to write to (new or empty; nothing outside it is written).")
    ],
    export_format: Annotated[
        str, typer.Option("--format", help="native, mini-swe-agent, skills or claude-code.")
    ] = "native",
    node: Annotated[
        str | None,
        typer.Option(
            help="Of a run: `best` (its result, the default), `root`, or a node's hash prefix.", show_default=False
        ),
    ] = None,
    runs: RunsDir = Path("runs"),
) -> None:
    """Write a harness folder, or a harness of a run, in another framework's format, with an EXPORT.md of where it came
    from and what was lost."""
    from harness_evo.evolve.nodes import harness_of, resolve_node
    from harness_evo.harness import Harness
    from harness_evo.harness.formats import Origin, export_harness
    from harness_evo.views import query

    if (folder := Path(source)).is_dir() and (folder / "harness.toml").is_file():
        if node is not None:
            raise UserError(f"--node names a node of a run, and {folder} is a harness folder; leave --node out")
        harness, origin, what = Harness.load(folder), Origin(), f"harness {folder}"
    else:
        try:
            store = open_run(source, runs)
        except UserError as e:
            raise UserError(f"{source!r} is neither a harness folder (with harness.toml) nor a run: {e}") from None
        node_id = resolve_node(store, node or "best")
        harness, origin, what = (
            harness_of(store, node_id),
            query.origin(store, node_id),
            f"node {node_id[:12]} of {store.id}",
        )
    exported = export_harness(harness, export_format, out, origin)
    console.print(
        f"exported {what} as {export_format} to {out}"
        + (f"; {len(exported.lost)} things could not be carried over, see {out / 'EXPORT.md'}" if exported.lost else "")
    )


DEFAULT_BASE = Path("harnesses/bash-agent")
"""The base harness of an import when --base is not given (if the folder exists where the command runs)."""


def import_into(import_format: str, source: Path, out: Path, base: Path | None) -> None:
    from harness_evo.harness import Harness
    from harness_evo.harness.formats import import_harness

    if base is not None and not base.is_dir():
        raise UserError(f"no base harness at {base}: pass --base HARNESS (it gives what the source has no place for)")
    base = base or (DEFAULT_BASE if DEFAULT_BASE.is_dir() else None)
    imported = import_harness(import_format, source, out, Harness.load(base) if base else None)
    console.print(f"wrote harness {imported.harness.name} ({imported.harness.short_hash}) to {out}")
    for note in imported.notes:
        console.print(f"  note: {note}", markup=False, highlight=False)


@import_app.command("mini-swe-agent")
def import_mini_swe_agent_command(
    config: Annotated[Path, typer.Argument(help="A mini-swe-agent YAML config.")],
    out: Annotated[Path, typer.Option("--out", help="The harness folder to write (new or empty).")],
    base: BaseHarness = None,
) -> None:
    """A harness folder from a mini-swe-agent config; refuses templates that use what harness-evo cannot give."""
    import_into("mini-swe-agent", config, out, base)


@import_app.command("skills")
def import_skills_command(
    folder: Annotated[
        Path,
        typer.Argument(
            help="A folder of Agent Skills (`<name>/SKILL.md`), one skill's folder, or a project with `.claude/skills`."
        ),
    ],
    out: Annotated[Path, typer.Option("--out", help="The harness folder to write (new or empty).")],
    base: BaseHarness = None,
) -> None:
    """A harness folder with these skills (and skills exported from tools as tools again); prompts and settings from the
    export itself, or from --base."""
    import_into("skills", folder, out, base)


@import_app.command("claude-code")
def import_claude_code_command(
    project: Annotated[
        Path, typer.Argument(help="A Claude Code project: CLAUDE.md, .claude/skills, .claude/agents, .claude/commands.")
    ],
    out: Annotated[Path, typer.Option("--out", help="The harness folder to write (new or empty).")],
    base: BaseHarness = None,
) -> None:
    """A harness folder from a Claude Code project: skills as skills, subagents and commands as skills, CLAUDE.md after
    the system prompt of --base; an export of harness-evo comes back as the harness it was."""
    import_into("claude-code", project, out, base)


if __name__ == "__main__":
    main()
