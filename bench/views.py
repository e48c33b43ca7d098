"""How long each terminal view takes on a large run (a benchmark, not a test); the goal is under one second each.

Builds, through the store's own `emit` like a real run, an evolution run with 10,000 rollouts over 300 nodes (a
random tree, each node a real harness snapshot), the ledger of 1,200 edits, 300 iterations, 3,000 failures in 60
patterns and 50,000 model calls; then times each view as a user gets it: the facts read from run.db and the
view rendered to text (rich, 200 columns). `watch` is timed for one refresh. `edits` shows the latest 100 edits
unless asked for all; the whole ledger is timed too, as a rich table of a thousand rows is slow to lay out.

    python bench/views.py [--rollouts 10000] [--nodes 300] [--calls 50000] [--keep DIR]
"""

import argparse
import hashlib
import io
import random
import shutil
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from harness_evo.evolve import nodes
from harness_evo.harness import Edit, Harness, Write
from harness_evo.store import EditStatus, RunStatus, RunStore
from harness_evo.views import diff, edits, rollout, runs, show, tree, watch

BASH_AGENT = Path(__file__).parents[1] / "harnesses" / "bash-agent"
TASKS = [f"task-{k:03d}" for k in range(60)]
SPLIT = {task: "dev" if k % 4 == 0 else "train" for k, task in enumerate(TASKS)}
STATUSES = [EditStatus.REJECTED_STATIC, EditStatus.REJECTED_EMPIRICAL, EditStatus.INVALID]
FIRST = hashlib.sha256(b"0").hexdigest()[:16]
"""Id of the first rollout, the one with a trajectory file."""


def build(runs_dir: Path, n_rollouts: int, n_nodes: int, n_calls: int, rng: random.Random) -> RunStore:
    store = RunStore.create(runs_dir, "evolve", run_id="evolve-bench")
    started = time.time() - 3600
    root = Harness.load(BASH_AGENT)
    harnesses, parents = [root], {root.hash: None}
    for k in range(1, n_nodes):
        parent = harnesses[rng.randrange(len(harnesses))]
        harnesses.append(
            parent.apply(
                Edit(
                    ops=[
                        Write(
                            path=f"skills/lesson-{k}/SKILL.md",
                            text=(
                                f"---\nname: lesson-{k}\ndescription: What iteration {k} learned.\n---\n"
                                f"Check the output of step {k} before going on.\n"
                            ),
                        )
                    ]
                )
            )
        )
        parents[harnesses[-1].hash] = parent.hash
    for harness in harnesses:
        harness.save(store.folder / "harnesses" / harness.hash)
    store.update_info(started=started, harness=str(BASH_AGENT), root=root.hash, tasks="tasks/core", config={"seed": 0})
    for k, harness in enumerate(harnesses):
        node = harness.hash
        parent = parents[node]
        edit_id = f"i{k}-r0-0" if parent else None
        store.emit(
            "node",
            id=node,
            parent_id=parent,
            edit_id=edit_id,
            iteration=k - 1,
            status="accepted" if parent else "root",
            created=started + k,
            expansions=rng.randrange(4),
            tokens_per_rollout=900.0 + k,
            train_score=min(1.0, 0.2 + k / n_nodes * 0.6 + rng.random() * 0.1),
            train_n=24,
            dev_score=min(1.0, 0.2 + k / n_nodes * 0.5 + rng.random() * 0.1),
            dev_n=15,
        )
        if parent:
            store.emit(
                "edit",
                id=edit_id,
                iteration=k - 1,
                parent_id=parent,
                child_id=node,
                pattern_id=f"P{k % 60 + 1}",
                revision=0,
                status="accepted",
                ops=[{"op": "write", "path": f"skills/lesson-{k}/SKILL.md", "text": "..."}],
                rationale=f"Teach the lesson of iteration {k}.",
                prediction="Fewer premature TASK_DONE.",
                reasons=[],
                gate={
                    "fixed": 3,
                    "broken": 0,
                    "ties": 2,
                    "p_value": 0.125,
                    "reason": "3 fixed and 0 broken",
                    "pairs": 5,
                },
                ts=started + k,
            )
            for r in range(1, 4):
                store.emit(
                    "edit",
                    id=f"i{k}-r{r}-0",
                    iteration=k - 1,
                    parent_id=parent,
                    child_id=None,
                    pattern_id=f"P{k % 60 + 1}",
                    revision=r,
                    status=STATUSES[r - 1],
                    ops=[{"op": "replace", "path": "prompts/system.md.j2", "old": "a", "new": "b"}],
                    rationale="Something that did not work.",
                    prediction="",
                    reasons=["too specific to one task"],
                    gate=None,
                    ts=started + k,
                )
        store.emit(
            "iteration",
            id=k,
            arm=f"P{k % 60 + 1}",
            node_id=node,
            tasks=TASKS[:4],
            started=started + k,
            finished=started + k + 1,
            outcome="edit accepted",
            spend={"proposer": 0.01 * k},
        )
    nodes = [h.hash for h in harnesses]
    for k in range(n_rollouts):
        node, task = nodes[k % len(nodes)], TASKS[k % len(TASKS)]
        passed = rng.random() < 0.5
        rollout_id = hashlib.sha256(str(k).encode()).hexdigest()[:16]
        store.emit(
            "rollout",
            id=rollout_id,
            node_id=node,
            harness_hash=node,
            task_id=task,
            split=SPLIT[task],
            trial=k // len(TASKS) % 3,
            model="local/qwen2.5-coder-1.5b",
            reward=float(passed),
            passed=passed,
            exit_reason="done" if passed else "step_limit",
            error=None,
            steps=8,
            format_errors=1,
            tokens_in=4000,
            tokens_out=300,
            cost=0.0,
            duration_s=30.0,
            started=started + k,
            finished=started + k + 30,
            trajectory=f"rollouts/{rollout_id}.json",
        )
        if not passed and k % 3 == 0:
            pattern = f"P{k % 60 + 1}"
            store.emit(
                "failure",
                id=rollout_id,
                rollout_id=rollout_id,
                task_id=task,
                node_id=node,
                split=SPLIT[task],
                source="analyzer",
                category="no-verification",
                pattern="declares done without checking",
                root_cause="It did not check.",
                critical_step=5,
                evidence="echo TASK_DONE",
                blame="harness",
                confidence=0.7,
                signature=pattern,
            )
            store.emit(
                "pattern_member",
                failure_id=rollout_id,
                pattern_id=pattern,
                rollout_id=rollout_id,
                task_id=task,
                node_id=node,
            )
    store.write_json(
        f"rollouts/{FIRST}.json",
        {
            "task_id": TASKS[0],
            "trial": 0,
            "harness_hash": nodes[0],
            "model": "local/qwen2.5-coder-1.5b",
            "exit_reason": "step_limit",
            "reward": 0.0,
            "verifier_output": "FAIL\n" * 40,
            "steps": [
                {
                    "index": i,
                    "reply": f"```bash\nls {i}\n```",
                    "action": f"ls {i}",
                    "output": "file\n" * 200,
                    "exit_code": 0,
                    "duration_s": 0.1,
                    "model_s": 2.0,
                }
                for i in range(8)
            ],
        },
    )
    for k in range(60):
        store.emit(
            "pattern",
            id=f"P{k + 1}",
            description=f"failure mode number {k + 1} of the agent",
            category="no-verification",
            status=["candidate", "promoted", "resolved", "retired"][k % 4],
            support=k % 7 + 1,
            task_ids=TASKS[: k % 7 + 1],
            infra=False,
            first_seen=started,
            last_seen=started + k,
        )
    roles = ["solver"] * 8 + ["analyzer", "proposer", "critic"]
    for k in range(n_calls):
        role = roles[k % len(roles)]
        store.emit(
            "llm_call",
            id=f"c{k}",
            role=role,
            model="local/qwen2.5-coder-1.5b",
            tokens_in=2000,
            tokens_out=150,
            tokens_cached=0,
            latency_s=1.5,
            cost=0.0 if role == "solver" else 0.0004,
            cache_hit=k % 5 == 0,
            error=None,
            ts=started + k * 0.05,
        )
    store.set_status(RunStatus.FINISHED, finished=started + 3600, best_node=nodes[-1])
    return store


def timed(label: str, make) -> tuple[str, float, int]:
    """Seconds to collect the facts and render them to text, and the lines the user gets."""
    console = Console(record=True, width=200, file=io.StringIO())
    clock = time.perf_counter()
    console.print(make())
    text = console.export_text()
    return label, time.perf_counter() - clock, text.count("\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rollouts", type=int, default=10_000)
    parser.add_argument("--nodes", type=int, default=300)
    parser.add_argument("--calls", type=int, default=50_000)
    parser.add_argument(
        "--keep", type=Path, help="Build the run in this folder and keep it, or use the one built there before."
    )
    args = parser.parse_args()
    runs_dir = args.keep or Path(tempfile.mkdtemp()) / "runs"
    if not (runs_dir / "evolve-bench" / "run.db").is_file():
        clock = time.perf_counter()
        build(runs_dir, args.rollouts, args.nodes, args.calls, random.Random(0)).close()
        print(
            f"built {runs_dir}: {args.rollouts} rollouts, {args.nodes} nodes, {args.calls} model calls in "
            f"{time.perf_counter() - clock:.0f} s"
        )
    store = RunStore(runs_dir / "evolve-bench")
    root, best = nodes.root(store), nodes.best(store)
    frames = watch.frames(store, interval=0)
    results = [
        timed("runs", lambda: runs.render(runs.collect(runs_dir), runs_dir)),
        timed("show", lambda: show.render(show.collect(store))),
        timed("tree", lambda: tree.render(tree.collect(store))),
        timed("edits (the last 100, the default)", lambda: edits.render(edits.collect(store, last=100))),
        timed("edits --last 0 (every edit)", lambda: edits.render(edits.collect(store))),
        timed("edits ID", lambda: edits.render_one(edits.one(store, f"i{max(1, args.nodes // 2)}-r0-0"))),
        timed("diff root best", lambda: diff.render(diff.collect(store, root[:12], best[:12]))),
        timed("rollout", lambda: rollout.render(rollout.collect(store, FIRST[:10]))),
        timed("watch (one refresh)", lambda: next(frames)),
    ]
    table = Table(
        "view",
        "seconds",
        "lines",
        title=f"views of a run with {args.rollouts:,} rollouts and {args.nodes} nodes",
        title_justify="left",
    )
    for label, seconds, lines in results:
        table.add_row(label, f"[{'green' if seconds < 1 else 'red'}]{seconds:.3f}[/]", str(lines))
    Console().print(table)
    if not args.keep:
        shutil.rmtree(runs_dir.parent)


if __name__ == "__main__":
    main()
