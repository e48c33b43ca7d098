"""Rollouts per minute of the embedded solver under each server setting (a benchmark, not a test).

The same dev tasks, one greedy rollout each (temperature 0, no response cache), for each setting in turn:
llama-cpp-python's server at 1 worker (the old default, the reference), llama-server at 1, 2 and 3 workers (a slot
each), and llama-server with speculative decoding (the 0.5B as draft model; n-gram speculation) at 1 and 2 workers.
Printed per setting: rollouts per minute and generated tokens per second of wall time, both also as ratios to the
reference; generated tokens per rollout; pass@1 with its 95% interval; and how many rollouts replied exactly as
llama-server at 1 worker did (greedy decoding: speculation and batching should not change a reply, floating-point order
aside). The two servers' kernels differ in floating-point order, so their greedy rollouts part ways after a few tokens
and are not the same work: rollouts per minute compare settings of one server; across servers, compare tokens per
second (or replay one conversation on both, as `--replay` does).

    python bench/embedded_throughput.py [--tasks tasks/core] [--harness harnesses/bash-agent] [--count 10]
        [--model local/qwen2.5-coder-1.5b] [--settings old,1,2,3,draft1,draft2,ngram1,ngram2] [--replay] [--runs DIR]
"""

import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from harness_evo import stats
from harness_evo.agent.executor import Executor
from harness_evo.agent.trajectory import stored
from harness_evo.config import SMALL_MODEL, EmbeddedConfig, ModelsConfig, RoleModel, RunConfig
from harness_evo.harness import Harness
from harness_evo.llm import LLM
from harness_evo.sandbox import get_backend
from harness_evo.store import RunStore
from harness_evo.taskset import load_suite

ROOT = Path(__file__).parents[1]


@dataclass(frozen=True)
class Setting:
    label: str
    workers: int
    embedded: EmbeddedConfig


SETTINGS = {
    "old": Setting("llama-cpp-python, 1 worker", 1, EmbeddedConfig(server="llama-cpp-python")),
    **{
        str(n): Setting(f"llama-server, {n} worker{'s' * (n > 1)}", n, EmbeddedConfig(server="llama-server", slots=n))
        for n in (1, 2, 3)
    },
    **{
        f"draft{n}": Setting(
            f"llama-server + 0.5B draft, {n} worker{'s' * (n > 1)}",
            n,
            EmbeddedConfig(server="llama-server", slots=n, draft=SMALL_MODEL),
        )
        for n in (1, 2)
    },
    **{
        f"ngram{n}": Setting(
            f"llama-server + n-gram, {n} worker{'s' * (n > 1)}",
            n,
            EmbeddedConfig(server="llama-server", slots=n, ngram=True),
        )
        for n in (1, 2)
    },
}
REFERENCE, GREEDY_REFERENCE = "old", "1"

app = typer.Typer(add_completion=False)
console = Console(width=170)


@dataclass
class Measured:
    rollouts: int
    passed: int
    wall_s: float
    tokens_out: int
    replies: dict[str, list[str]]
    """Task id -> the model's replies, step by step."""

    @property
    def per_minute(self) -> float:
        return self.rollouts / self.wall_s * 60

    @property
    def tokens_per_s(self) -> float:
        return self.tokens_out / self.wall_s


def measure(setting: Setting, config: RunConfig, tasks: list, runs: Path) -> Measured:
    run = config.with_options({"executor.workers": setting.workers})
    run = run.model_copy(update={"models": run.models.model_copy(update={"embedded": setting.embedded})})
    store = RunStore.create(runs, "eval")
    suite = load_suite(config.tasks, seed=config.seed)
    harness = Harness.load(config.harness)
    backend = get_backend(run.sandbox, run_id=store.id)
    with LLM(run.run_models(setting.workers), store=store, cache=False) as llm:
        llm.complete(
            "solver", [{"role": "user", "content": "Say ok."}], max_tokens=1
        )  # the server's start is not timed
        started = time.monotonic()
        rows = Executor.from_config(store, run, suite, llm, backend).run(harness, tasks, [0])
        wall = time.monotonic() - started
    trajectories = stored(store, rows)
    return Measured(
        len(rows),
        sum(row.passed for row in rows),
        wall,
        sum(row.tokens_out for row in rows),
        {t.task_id: [step.reply for step in t.steps] for t in trajectories},
    )


REPLAY_SYSTEM = (
    "You are an agent that completes tasks in a Linux terminal. "
    "Every reply must contain exactly one fenced bash block. "
) * 25
REPLAY_OBSERVATION = "Exit code: 0\nOutput:\n" + "\n".join(
    f"-rw-r--r-- 1 root root {i * 137} Dec  3 file{i}.txt" for i in range(8)
)
REPLAY_REPLY = "```bash\nls -la /app\n```"


def replay(setting: Setting, model: str, turns: int = 10) -> tuple[float, int, int]:
    """One agent-like conversation of `turns` turns with fixed assistant turns (so every setting gets the same prompts):
    seconds per turn, tokens generated, tokens of the last prompt."""
    models = ModelsConfig(solver=RoleModel(model=model, max_tokens=40, temperature=0.0), embedded=setting.embedded)
    with LLM(models, cache=False) as llm:
        llm.complete("solver", [{"role": "user", "content": "Say ok."}], max_tokens=1)
        messages = [
            {"role": "system", "content": f"{uuid.uuid4()} {REPLAY_SYSTEM}"},
            {"role": "user", "content": "Task: find the largest file and print its name."},
        ]
        started, generated, prompt = time.monotonic(), 0, 0
        for turn in range(turns):
            reply = llm.complete("solver", messages)
            generated, prompt = generated + reply.tokens_out, reply.tokens_in
            messages += [
                {"role": "assistant", "content": REPLAY_REPLY},
                {"role": "user", "content": f"{REPLAY_OBSERVATION}\nTurn {turn}."},
            ]
        return (time.monotonic() - started) / turns, generated, prompt


@app.command()
def main(
    tasks: Annotated[Path, typer.Option(help="The task suite; its dev split's first --count tasks are run.")] = ROOT
    / "tasks/core",
    harness: Annotated[Path, typer.Option(help="The harness every setting runs.")] = ROOT / "harnesses/bash-agent",
    count: Annotated[int, typer.Option(min=1, help="Dev tasks, one greedy rollout each per setting.")] = 10,
    model: Annotated[str, typer.Option(help="The embedded solver.")] = "local/qwen2.5-coder-1.5b",
    settings: Annotated[str, typer.Option(help=f"Comma-separated, of: {', '.join(SETTINGS)}.")] = ",".join(SETTINGS),
    runs: Annotated[
        Path | None, typer.Option(help="Keep each setting's run folder here (default: a temporary folder).")
    ] = None,
    replay_only: Annotated[
        bool, typer.Option("--replay", help="Time one fixed 10-turn conversation per 1-worker setting instead.")
    ] = False,
) -> None:
    chosen = [name.strip() for name in settings.split(",")]
    unknown = [name for name in chosen if name not in SETTINGS]
    if unknown:
        raise typer.BadParameter(f"unknown settings {', '.join(unknown)}; choose from {', '.join(SETTINGS)}")
    if replay_only:
        timed = {name: replay(SETTINGS[name], model) for name in chosen if SETTINGS[name].workers == 1}
        table = Table(
            "setting",
            "s/turn",
            "x ref",
            "tokens generated",
            "last prompt tokens",
            title=f"One fixed 10-turn conversation, {model}",
        )
        for name, (per_turn, generated, prompt) in timed.items():
            ratio = timed[REFERENCE][0] / per_turn if REFERENCE in timed else None
            table.add_row(
                SETTINGS[name].label, f"{per_turn:.2f}", f"{ratio:.2f}" if ratio else "-", str(generated), str(prompt)
            )
        console.print(table)
        return
    config = RunConfig(harness=harness, tasks=tasks, split="dev").model_copy()
    config.models.solver = RoleModel(model=model, temperature=0.0)
    suite = load_suite(tasks, seed=config.seed)
    dev = suite.split("dev")[:count]
    backend = get_backend(config.sandbox)
    for task in dev:
        backend.prepare(task)  # images are built before any setting is timed
    console.print(f"{len(dev)} dev tasks, 1 greedy rollout each, solver {model}")
    results: dict[str, Measured] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for name in chosen:
            results[name] = measure(SETTINGS[name], config, dev, runs or Path(scratch))
            done = results[name]
            console.print(f"  {SETTINGS[name].label}: {done.rollouts} rollouts in {done.wall_s:.0f} s", highlight=False)
    reference = results.get(REFERENCE)
    greedy = results.get(GREEDY_REFERENCE)
    table = Table(
        "setting",
        "rollouts/min",
        "x ref",
        "gen tokens/s",
        "x ref",
        "tokens/rollout",
        "pass@1 [95% CI]",
        "replies as llama-server@1",
        title=f"Embedded solver throughput, {len(dev)} dev tasks (reference: {SETTINGS[REFERENCE].label})",
    )
    for name, done in results.items():
        rate = stats.rate(done.passed, done.rollouts)
        same = sum(greedy.replies.get(task) == replies for task, replies in done.replies.items()) if greedy else None
        table.add_row(
            SETTINGS[name].label,
            f"{done.per_minute:.2f}",
            f"{done.per_minute / reference.per_minute:.2f}" if reference else "-",
            f"{done.tokens_per_s:.1f}",
            f"{done.tokens_per_s / reference.tokens_per_s:.2f}" if reference else "-",
            f"{done.tokens_out / max(done.rollouts, 1):.0f}",
            f"{rate.value:.0%} [{rate.low:.0%}, {rate.high:.0%}] n={rate.n}",
            f"{same}/{done.rollouts}" if same is not None else "-",
        )
    console.print(table)


if __name__ == "__main__":
    app()
