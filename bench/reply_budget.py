"""Tokens a solver's replies spend after their action, with and without the stop sequences (a measurement, not a test).

Reads the trajectories of a run folder (an `eval` of a harness) and, for each recorded reply, the tokens it spent and
the text around its action's block (the stop sequences cut a reply at the close of its first block, so whatever the
model writes after it is never generated). Then asks the run's solver again for up to `--replies` of those replies
(each rollout's first, then each one's second, ...):
the same messages, seed and sampling, without any stop sequence, and counts the tokens it writes after the close of its
first block: what the stop sequences save per reply.

    python bench/reply_budget.py runs/eval-... [--replies 20]
"""

import argparse
import re
from itertools import zip_longest
from pathlib import Path
from statistics import fmean, median, pstdev

import httpx
from rich.console import Console

from harness_evo.agent.trajectory import Trajectory
from harness_evo.config import RunConfig
from harness_evo.harness import Harness
from harness_evo.llm import LLM, ModelUnavailable
from harness_evo.store import Rollout, RunStore

BLOCK = re.compile(r"```[A-Za-z0-9_+-]*[ \t]*\n.*?\n?```", re.DOTALL)
"""A closed fenced block, as the bash-block format reads one."""


def around(reply: str) -> tuple[str, str] | None:
    """(text before, text after) the reply's first closed block;
    None when it has none (a stop cut it, or none at all)."""
    match = BLOCK.search(reply)
    return (reply[: match.start()], reply[match.end() :]) if match else None


def trajectories(store: RunStore) -> list[Trajectory]:
    return [
        Trajectory.model_validate(store.read_json(rollout.trajectory))
        for rollout in store.records(Rollout)
        if rollout.trajectory and (store.folder / rollout.trajectory).is_file()
    ]


def prompts(trajectory: Trajectory) -> list[list[dict]]:
    """The messages each step's reply answered, in step order."""
    replies = [i for i, message in enumerate(trajectory.messages) if message["role"] == "assistant"]
    return [trajectory.messages[:at] for at in replies]


def tokens(llm: LLM, config: RunConfig, text: str) -> int:
    """Tokens of `text` for the solver: its own server's tokenizer for an embedded model, else litellm's count."""
    endpoint = llm.endpoint(config.models.solver)
    if endpoint.server is not None and text:
        return len(httpx.post(f"{endpoint.server.url}/tokenize", json={"content": text}, timeout=30).json()["tokens"])
    import litellm  # after harness_evo, which sets litellm's offline settings before it is first imported

    return litellm.token_counter(model="gpt-4o", text=text) if text else 0


def spread(values: list[float]) -> str:
    if not values:
        return "n=0"
    return (
        f"n={len(values)}, mean {fmean(values):.1f}, sd {pstdev(values):.1f}, median {median(values):g}, "
        f"min {min(values):g}, max {max(values):g}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--replies", type=int, default=20, help="replies asked again without stop sequences")
    args = parser.parse_args()
    store = RunStore(args.run)
    config = RunConfig.load(store.folder / "config.toml")
    config.models.solver.timeout_s = max(
        config.models.solver.timeout_s, 1800
    )  # a reply without stop sequences may run to max_tokens
    stored = trajectories(store)
    recorded = [step for trajectory in stored for step in trajectory.steps]
    asked = [
        [(trajectory, step, messages) for step, messages in enumerate(prompts(trajectory))] for trajectory in stored
    ]
    found = [
        turn for turns in zip_longest(*asked) for turn in turns if turn
    ]  # every rollout's first reply, then the seconds...
    parts = [around(step.reply) for step in recorded]
    console = Console()
    console.print(f"recorded replies: tokens {spread([step.tokens_out for step in recorded])}")
    console.print(
        f"  cut by a stop sequence at the close of their block: {sum(part is None for part in parts)}; "
        f"characters after a closed block: {spread([len(part[1].strip()) for part in parts if part])}; "
        f"characters before the block: {spread([len(part[0].strip()) for part in parts if part])}"
    )
    after = []
    if not args.replies:
        return
    with LLM(config.models, cache=False) as llm:
        for trajectory, step, messages in found[: args.replies]:
            harness = Harness.load(store.folder / "harnesses" / trajectory.harness_hash)
            try:
                free = llm.complete(
                    "solver",
                    messages,
                    seed=trajectory.trial,
                    stop=None,
                    temperature=harness.sampling.temperature,
                    max_tokens=harness.sampling.max_tokens,
                )
            except ModelUnavailable as e:
                console.print(f"{trajectory.task_id} step {step}: no reply ({e})", soft_wrap=True)
                continue
            split = around(free.text)
            spent = tokens(llm, config, split[1]) if split else 0
            after.append(spent)
            console.print(
                f"{trajectory.task_id} step {step}: {trajectory.steps[step].tokens_out} tokens with the stop "
                f"sequences, {free.tokens_out} without; "
                + (
                    f"{spent} after the block: {split[1].strip()[:70]!r}"
                    if split
                    else f"no closed block: {free.text[-70:]!r}"
                ),
                soft_wrap=True,
            )
    console.print(f"tokens after the block without stop sequences: {spread(after)}")


if __name__ == "__main__":
    main()
