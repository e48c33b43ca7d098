"""What a user sees while `evolve` (or `eval`) runs: the live panel, or plain lines with --quiet or in a log file."""

import pytest
from rich.console import Console

from harness_evo.evolve import events as ev
from harness_evo.evolve.budget import Estimate
from harness_evo.store import Edit, Node, Rollout
from harness_evo.store.info import EvolutionSummary
from harness_evo.views import style
from harness_evo.views.evaluation import RolloutProgress
from harness_evo.views.evolution import EvolutionView, next_steps, summary_panel

ROOT, CHILD = "a" * 64, "b" * 64
ESTIMATE = Estimate(
    iterations=3,
    rollouts=40,
    dev_rollouts=12,
    model_calls={"solver": 200, "proposer": 3},
    dollars={"solver": 0.0, "proposer": 0.0},
    wall_minutes=15,
)
ROW = Rollout(id="r1", task_id="fruit", split="train", trial=0)
EVENTS = [
    ev.RunStarted("evolve-1", ESTIMATE),
    ev.IterationStarted(0, "explore", ROOT, ["fruit", "color"]),
    ev.RolloutProgress("started", ROW),
    ev.RolloutProgress("started", ROW.model_copy(update={"id": "r2", "task_id": "color"})),
    ev.RolloutProgress("finished", ROW.model_copy(update={"passed": True})),
    ev.RolloutProgress("cached", ROW.model_copy(update={"id": "r0", "passed": True})),
    ev.EditJudged(
        Edit(
            id="i0-r0-0",
            iteration=0,
            parent_id=ROOT,
            pattern_id="P1",
            status="rejected_static",
            reasons=["names the training task fruit"],
        )
    ),
    ev.EditJudged(
        Edit(
            id="i0-r1-0",
            iteration=0,
            parent_id=ROOT,
            pattern_id="P1",
            status="accepted",
            gate={"reason": "6 fixed vs 0 broken"},
        )
    ),
    ev.NodeScored(Node(id=CHILD, train_score=1.0, train_n=8, dev_score=0.75, dev_n=4), CHILD),
    ev.IterationFinished(0, "edit i0-r1-0 accepted", {"proposer": 0.0123}),
]


def console() -> Console:
    return Console(record=True, width=120, force_terminal=False)


def test_the_live_panel_shows_the_iteration_rollouts_in_flight_best_scores_edits_and_spend():
    view = EvolutionView(console())
    for event in EVENTS:
        view(event)
    screen = console()
    screen.print(view.render())
    text = screen.export_text()
    assert f"0  arm explore  node {ROOT[:12]}" in text
    assert "1 done (1 passed), 1 reused from earlier, 1 running color#0" in text, "as many done as the summary counts"
    assert "highest    train 100% [68%, 100%] (n=8)  dev 75% [30%, 95%] (n=4)" in text, (
        "each best score with its interval and n"
    )
    assert "1 accepted, 1 rejected statically" in text
    assert "proposer $0.012" in text
    assert "edit i0-r0-0 against P1: rejected statically: names the training task fruit" in text


def test_quiet_mode_prints_one_line_per_event_and_none_per_rollout():
    screen = console()
    view = EvolutionView(screen, quiet=True)
    for event in EVENTS:
        view(event)
    lines = screen.export_text().splitlines()
    assert lines[0].startswith(
        "evolving run evolve-1: about 40 rollouts (about 12 of them scoring harnesses on dev), about 203 model calls"
    )
    assert lines[1:] == [
        f"iteration 0: arm explore, node {ROOT[:12]}, tasks fruit, color",
        "edit i0-r0-0 against P1: rejected statically: names the training task fruit",
        "edit i0-r1-0 against P1: accepted: 6 fixed vs 0 broken",
        f"node {CHILD[:12]}: train 100% [68%, 100%] (n=8), dev 75% [30%, 95%] (n=4); best {CHILD[:12]}",
        "iteration 0 done: edit i0-r1-0 accepted",
    ]


def test_quiet_mode_tells_how_many_rollouts_are_done_once_a_minute(monkeypatch):
    """A log file of a long evolve is not silent for the minutes its rollouts take."""
    monkeypatch.setattr(style, "PLAIN_EVERY_S", 0.0)
    screen = console()
    view = EvolutionView(screen, quiet=True)
    for event in EVENTS[:5]:
        view(event)
    assert screen.export_text().splitlines()[-1].startswith("rollouts: 1 done (1 passed), 1 running; ")
    monkeypatch.setattr(style, "PLAIN_EVERY_S", 60.0)
    screen = console()
    view = EvolutionView(screen, quiet=True)
    for event in EVENTS[:5]:
        view(event)
    assert "rollouts:" not in screen.export_text(), "not before a minute has passed"


def test_eval_progress_in_a_log_file_is_plain_lines_not_a_bar(monkeypatch):
    monkeypatch.setattr(style, "PLAIN_EVERY_S", 3600.0)
    screen = console()
    with RolloutProgress(3, console=screen) as progress:
        for trial in range(3):
            progress.update(
                "finished", ROW.model_copy(update={"trial": trial, "passed": trial == 1, "exit_reason": "done"})
            )
    lines = screen.export_text().splitlines()
    assert len(lines) == 1, "the last rollout's line always; no bar, and none sooner than the period"
    assert lines[0].startswith("rollouts 3/3, 1 passed; last fruit#2: done; ")
    assert "━" not in screen.export_text()


def test_the_closing_summary_counts_fates_and_says_where_the_best_harness_is():
    summary = EvolutionSummary(
        run_id="evolve-1",
        stop="3 iterations done",
        iterations=3,
        rollouts=37,
        elapsed_s=600.0,
        proposals=5,
        fates={"invalid": 1, "rejected_static": 1, "rejected_empirical": 1, "accepted": 1, "proposed": 1},
        start_dev=0.5,
        start_dev_n=28,
        best_dev=0.75,
        best_dev_n=28,
        nodes=2,
        spend={"proposer": 0.5},
        root=ROOT,
        best_node=CHILD,
    )
    screen = console()
    screen.print(summary_panel(summary))
    text = screen.export_text()
    assert (
        "proposals: 5 made, 1 invalid, 1 rejected statically, 1 rejected empirically, 1 accepted, 1 not yet gated"
        in text
    )
    assert "dev pass@1: start 50% [33%, 67%] (n=28) -> best 75% [57%, 87%] (n=28)" in text
    steps = next_steps(summary, "/runs/evolve-1")
    assert f"best harness: /runs/evolve-1/harnesses/{CHILD}" in steps
    assert (
        f"harness-evo diff evolve-1 {ROOT[:12]} {CHILD[:12]}" in steps
        and "harness-evo export evolve-1 --node best" in steps
    )


def test_a_run_that_already_did_work_is_resuming_and_its_forecast_is_of_what_is_left():
    screen = console()
    EvolutionView(screen, quiet=True)(ev.RunStarted("evolve-1", ESTIMATE.model_copy(update={"more": True})))
    assert screen.export_text().startswith(
        "resuming run evolve-1: about 40 more rollouts (about 12 of them scoring harnesses on dev), "
        "about 203 more model calls"
    )


def test_an_unexpected_error_in_a_run_is_one_line_that_keeps_the_traceback_and_says_how_to_resume(
    tmp_path, monkeypatch, capsys
):
    from harness_evo.cli import main
    from harness_evo.evolve import preflight, session
    from harness_evo.store import RunStore

    store = RunStore.create(tmp_path, "evolve")

    def broken_run(store, listeners):
        raise RuntimeError("the tree lost a node\nsecond line")

    monkeypatch.setattr(session, "run", broken_run)
    monkeypatch.setattr(preflight, "check_resume", lambda store: None)  # a bare run folder has no budgets to check
    monkeypatch.setattr("sys.argv", ["harness-evo", "resume", str(store.folder), "--quiet"])
    with pytest.raises(SystemExit) as exit_:
        main()

    assert exit_.value.code == 2
    error = " ".join(capsys.readouterr().err.split())
    assert "unexpected error (RuntimeError: the tree lost a node)" in error and "Traceback" not in error
    assert f"harness-evo resume {store.folder.name}" in error
    assert "second line" in (store.folder / "crash.log").read_text()


@pytest.mark.slow
def test_a_run_that_another_process_is_running_is_not_resumed_nor_given_new_budgets(tmp_path, monkeypatch, capsys):
    import os
    import subprocess
    import sys

    from harness_evo.cli import main
    from harness_evo.evolve import session
    from harness_evo.store import RunStore

    store = RunStore.create(tmp_path, "evolve")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom harness_evo.evolve import session\n"
            "from harness_evo.store import RunStore\nwith session.owned(RunStore(sys.argv[1])):\n"
            "    print('running', flush=True)\n    time.sleep(60)",
            str(store.folder),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "running\n"
        monkeypatch.setattr(session, "run", lambda *args: pytest.fail("a second process ran the run"))
        monkeypatch.setattr(
            session, "raise_budget", lambda *args, **kwargs: pytest.fail("a second process changed the budgets")
        )
        monkeypatch.setattr("sys.argv", ["harness-evo", "resume", str(store.folder), "--iterations", "5", "--quiet"])
        with pytest.raises(SystemExit) as exit_:
            main()
    finally:
        holder.kill()
        holder.wait()

    assert exit_.value.code == 2
    assert f"run {store.id} is already running (process {holder.pid})" in " ".join(capsys.readouterr().err.split())
    with session.owned(store):
        assert (store.folder / session.LOCK).read_text() == str(os.getpid()), "a killed holder leaves the run free"


def test_the_closing_summary_says_plainly_when_the_run_has_not_shown_a_gain_and_what_noise_alone_would_accept():
    closest = {
        "node": CHILD,
        "shown_gain": False,
        "n": 28,
        "tasks": 28,
        "diff": 0.07,
        "low": -0.04,
        "high": 0.18,
        "b_better": 3,
        "a_better": 1,
        "p_value": 0.62,
        "alpha": 0.1,
        "verdict": "no measurable difference at this sample size",
    }
    summary = EvolutionSummary(
        run_id="evolve-1",
        stop="3 iterations done",
        iterations=3,
        rollouts=90,
        elapsed_s=600.0,
        proposals=4,
        fates={"rejected_empirical": 3, "accepted": 1},
        start_dev=0.25,
        start_dev_n=28,
        best_dev=0.25,
        best_dev_n=28,
        nodes=2,
        spend={},
        root=ROOT,
        best_node=ROOT,
        dev_comparison=closest,
        gates=4,
        expected_false_accepts=0.4,
    )
    screen = console()
    screen.print(summary_panel(summary))
    text = " ".join(screen.export_text().replace("│", " ").split())
    assert (
        "the run has not shown a gain over the starting harness on dev (closest: no measurable difference at this "
        "sample size)" in text
    )
    assert (
        "gated 4 edits and accepted 1; edits that change nothing would get at most 0.4 accepts from noise alone" in text
    )
    assert "3 iterations, 90 rollouts" in text
    one = summary.model_copy(update={"iterations": 1, "decisions": 1, "rollouts_per_decision": 72.0})
    screen.print(summary_panel(one))
    text = " ".join(screen.export_text().replace("│", " ").split())
    assert "1 iteration, 90 rollouts" in text and "from noise alone; 1 gate decision ran 72 rollouts spend" in text
    steps = next_steps(summary, "/runs/evolve-1")
    assert "(the best is the start: no accepted edit beat it on dev)" in steps and "no edit was accepted" not in steps
    cut = summary.model_copy(
        update={"fates": {"rejected_empirical": 3, "accepted": 1, "proposed": 2}, "accepted_by_move": {"knob": 1}}
    )
    screen.print(summary_panel(cut.model_copy(update={"interrupted": 1})))
    text = " ".join(screen.export_text().replace("│", " ").split())
    assert "3 rejected empirically, 1 accepted (1 by knob), 1 in a gate the stop interrupted, 1 not yet gated" in text

    shown = EvolutionSummary.model_validate(
        summary.model_dump()
        | {
            "best_node": CHILD,
            "best_dev": 0.6,
            "dev_comparison": closest | {"shown_gain": True, "verdict": "node b is better"},
        }
    )
    screen = console()
    screen.print(summary_panel(shown))
    text = " ".join(screen.export_text().replace("│", " ").split())
    assert "on dev: node b is better" in text and "has not shown a gain" not in text


def judged_line(**edit) -> str:
    """The line the quiet view prints when the edit `edit` is judged."""
    screen = console()
    EvolutionView(screen, quiet=True)(ev.EditJudged(Edit(iteration=1, parent_id=ROOT, **edit)))
    return screen.export_text().strip()


def test_an_edit_is_named_by_its_move_and_what_it_is_for_never_by_a_missing_pattern():
    harvest = dict(move="harvest", status="accepted", gate={"reason": "6 fixed vs 0 broken"})
    assert (
        judged_line(id="i1-r0-0", sources=["sun", "moon"], **harvest)
        == "edit i1-r0-0 (harvest of sun, moon): accepted: 6 fixed vs 0 broken"
    )
    assert (
        judged_line(id="i2-r0-0", sources=[f"t{i}" for i in range(21)], **harvest)
        == "edit i2-r0-0 (harvest of 21 tasks: t0, t1, t2, ...): accepted: 6 fixed vs 0 broken"
    )
    futile = dict(status="rejected_empirical", gate={"reason": "futile: 0 fixed vs 2 broken"})
    assert (
        judged_line(id="i6-r0-0", move="prune", **futile)
        == "edit i6-r0-0 (prune) for every task: rejected by the gate: futile: 0 fixed vs 2 broken"
    )
    assert (
        judged_line(id="i7-r0-0", move="stand-in", pattern_id="P2", **futile)
        == "edit i7-r0-0 (stand-in) against P2: rejected by the gate: futile: 0 fixed vs 2 broken"
    )
    assert judged_line(id="i8-r0-0", pattern_id="P3", status="proposed").startswith("edit i8-r0-0 against P3: ")


def test_the_closing_summary_of_a_run_that_measured_little_says_plainly_what_it_did_not_measure():
    """A 15-minute run on a slow machine: the start scored on dev, then the time was up before the first iteration."""
    unmeasured = {
        "id": f"{ROOT}/train",
        "node_id": ROOT,
        "split": "train",
        "identifiability": {"value": None},
        "dependence": {"value": None},
        "template": {"value": None},
        "rollouts": 0,
    }
    summary = EvolutionSummary.model_validate(
        {
            "run_id": "evolve-1",
            "stop": "wall time reached (15 min)",
            "iterations": 0,
            "rollouts": 32,
            "elapsed_s": 900.0,
            "proposals": 0,
            "fates": {},
            "start_dev": 0.14,
            "start_dev_n": 28,
            "best_dev": 0.14,
            "best_dev_n": 28,
            "nodes": 1,
            "spend": {},
            "root": ROOT,
            "best_node": ROOT,
            "dev_comparison": None,
            "gates": 0,
            "expected_false_accepts": 0.0,
            "conditioning": {"start": unmeasured, "best": unmeasured, "reads_less": []},
        }
    )
    screen = console()
    screen.print(summary_panel(summary))
    text = " ".join(screen.export_text().replace("│", " ").split())
    assert "dev pass@1: start 14% [6%, 31%] (n=28); no edit was accepted, so no other harness was scored on dev" in text
    assert "no edit was gated: the run ended before its first iteration" in text
    screen = console()
    screen.print(summary_panel(summary.model_copy(update={"proposals": 2, "fates": {"invalid": 1, "proposed": 1}})))
    said = " ".join(screen.export_text().replace("│", " ").split())
    assert "no edit was gated: the run ended in its first iteration, before a gate decided" in said
    assert (
        "reads the task (the input-conditioning gauge): not measured, as no train rollout of the starting harness was "
        "scored" in text
    )
    assert "n0" not in text and "-> best" not in text

    screen = console()
    screen.print(
        summary_panel(
            summary.model_copy(
                update={"start_dev": None, "start_dev_n": 0, "best_dev": None, "best_dev_n": 0, "rollouts": 9}
            )
        )
    )
    text = " ".join(screen.export_text().replace("│", " ").split())
    assert "dev pass@1: not measured: the run stopped before it had scored the starting harness on dev" in text
