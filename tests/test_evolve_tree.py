"""The search tree: harness versions joined by accepted edits; which node to expand, and which one is best."""

import random
from pathlib import Path

from harness_evo.config import SearchConfig
from harness_evo.evolve.plan import across_categories, pattern_sample, same_category
from harness_evo.evolve.target import Target
from harness_evo.evolve.tree import UCB, Greedy, SearchTree, name_best, node_selector
from harness_evo.store import Node, Rollout, RunStore
from harness_evo.taskset import Task


def node(id: str, parent: str | None = None, train=None, dev=None, tokens=100.0, expansions=0, created=0.0) -> Node:
    return Node(
        id=id,
        parent_id=parent,
        train_score=train,
        dev_score=dev,
        tokens_per_rollout=tokens,
        expansions=expansions,
        created=created,
        iteration=-1 if parent is None else 0,
    )


def test_the_tree_is_rebuilt_from_the_nodes_table(tmp_path):
    store = RunStore.create(tmp_path, "evolve")
    for row in (node("root"), node("a", "root", created=1.0), node("b", "a", created=2.0)):
        store.put(row)
    tree = SearchTree.load(store)
    assert tree.root == "root" and len(tree) == 3
    assert tree.lineage("b") == ["root", "a", "b"]


def test_the_highest_dev_node_has_the_best_dev_score_and_ties_go_to_fewer_tokens():
    tree = SearchTree(
        [
            node("root", dev=0.5),
            node("long", "root", dev=0.75, tokens=900.0),
            node("short", "root", dev=0.75, tokens=300.0),
            node("unscored", "root"),
        ]
    )
    assert tree.highest_dev() == "short"
    assert SearchTree([node("root")]).highest_dev() == "root", "with no dev score yet, the root"


def test_ucb_expands_an_unscored_node_first_then_trades_score_for_novelty():
    assert UCB().select(SearchTree([node("root", train=0.9, expansions=3), node("new", "root")])) == "new"
    worn = SearchTree([node("root", train=0.6, expansions=9), node("fresh", "root", train=0.5, expansions=0)])
    assert UCB(exploration=1.0).select(worn) == "fresh"
    assert UCB(exploration=0.0).select(worn) == "root"


def test_greedy_takes_the_best_train_score_and_the_strategy_is_chosen_by_name():
    tree = SearchTree([node("root", train=0.4, expansions=0), node("good", "root", train=0.8, expansions=5)])
    assert Greedy().select(tree) == "good"
    assert isinstance(node_selector(SearchConfig(strategy="greedy")), Greedy)
    assert isinstance(node_selector(SearchConfig(strategy="ucb")), UCB)


def test_a_child_is_gated_on_at_most_n_of_its_patterns_train_tasks_the_easiest_first_drawn_reproducibly():
    difficulty = {"a": "hard", "b": "easy", "c": "medium", "d": "easy", "e": "easy", "f": "medium", "g": "easy"}
    train = [Task(id=name, folder=Path(name), instruction="", difficulty=level) for name, level in difficulty.items()]
    pattern = Target(description="", task_ids=["a", "b", "c", "d", "e", "f", "dev-only"])

    drawn = pattern_sample(pattern, train, 4, random.Random("0:3"))

    def medium(drawn: list[str]) -> str:
        [extra] = set(drawn) - {"b", "d", "e"}
        return extra

    assert len(drawn) == 4 and {"b", "d", "e"} < set(drawn) and drawn == sorted(drawn), (
        "the three easy ones and a medium one"
    )
    assert {medium(pattern_sample(pattern, train, 4, random.Random(seed))) for seed in range(20)} == {"c", "f"}
    assert drawn == pattern_sample(pattern, train, 4, random.Random("0:3")), "a resumed run gates on the same tasks"
    assert pattern_sample(pattern, train, 10, random.Random(1)) == list("abcdef")


def test_a_task_no_rollout_ever_passed_is_left_out_of_the_gate_unless_the_pattern_has_no_other():
    difficulty = {"a": "easy", "b": "easy", "c": "medium", "d": "hard"}
    train = [Task(id=name, folder=Path(name), instruction="", difficulty=level) for name, level in difficulty.items()]
    pattern = Target(description="", task_ids=list(difficulty))

    assert pattern_sample(pattern, train, 2, random.Random(0), unsolved={"a", "b"}) == ["c", "d"], (
        "solvable ones, even harder"
    )
    assert pattern_sample(pattern, train, 4, random.Random(0), unsolved={"b"}) == ["a", "c", "d"]
    assert pattern_sample(pattern, train, 4, random.Random(0), unsolved=set(difficulty)) in (["a"], ["b"]), (
        "one easy one is kept"
    )


def test_the_tasks_an_edit_supplies_a_missing_program_for_are_gated_first_even_if_never_solved():
    difficulty = {"a": "easy", "b": "easy", "c": "hard", "d": "hard"}
    train = [Task(id=name, folder=Path(name), instruction="", difficulty=level) for name, level in difficulty.items()]
    pattern = Target(description="", task_ids=list(difficulty))

    assert pattern_sample(pattern, train, 2, random.Random(0), unsolved={"c", "d"}, targeted={"c", "d"}) == ["c", "d"]
    assert pattern_sample(pattern, train, 3, random.Random(0), targeted={"d"}) in (["a", "b", "d"],), "then the easiest"
    assert pattern_sample(
        Target(description="", task_ids=["a"]),
        train,
        3,
        random.Random(0),
        unsolved={"d"},
        targeted={"a"},
        related={"c", "d"},
    ) == ["a", "c", "d"], "tasks alike the targeted ones come next, though not the pattern's"


def test_a_tool_for_a_program_one_sqlite_task_missed_is_for_every_sqlite_task():
    category = {"a": "sqlite", "b": "sqlite", "c": "files", "d": "sqlite"}
    train = [Task(id=name, folder=Path(name), instruction="", category=kind) for name, kind in category.items()]
    assert same_category({"a"}, train) == {"b", "d"}
    assert same_category({"a", "c"}, train) == {"b", "d"}
    assert same_category(set(), train) == set()


def test_the_regression_sample_spans_as_many_categories_as_it_has_tasks():
    category = {"a1": "sqlite", "a2": "sqlite", "a3": "sqlite", "a4": "sqlite", "b1": "text", "c1": "log", "c2": "log"}
    train = [Task(id=name, folder=Path(name), instruction="", category=kind) for name, kind in category.items()]
    for seed in range(20):
        drawn = across_categories(list(category), train, 3, random.Random(seed))
        assert len(drawn) == 3 and {category[task] for task in drawn} == {"sqlite", "text", "log"}, drawn
        assert drawn == across_categories(list(category), train, 3, random.Random(seed)), (
            "a resumed run gates on the same tasks"
        )
    assert len({tuple(across_categories(list(category), train, 3, random.Random(seed))) for seed in range(20)}) > 1, (
        "still at random"
    )
    assert across_categories(list(category), train, 10, random.Random(0)) == sorted(category)
    assert across_categories([], train, 4, random.Random(0)) == []


def test_an_explore_iteration_works_on_the_pattern_it_touched_that_the_curriculum_prefers_not_the_broadest(tmp_path):
    from harness_evo.config import RunConfig
    from harness_evo.curriculum import EXPLORE
    from harness_evo.evolve.patterns import Patterns

    store = RunStore.create(tmp_path, "evolve")
    for pattern, support, tasks in (("P1", 30, ["a", "b"]), ("P2", 3, ["c"]), ("P3", 9, ["d"])):
        store.emit("pattern", id=pattern, status="promoted", support=support, task_ids=tasks, description=pattern)
    for rollout, pattern in (("r1", "P1"), ("r2", "P2")):
        store.emit("pattern_member", failure_id=f"f-{rollout}", pattern_id=pattern, rollout_id=rollout, task_id=rollout)
    patterns = Patterns(store, None, RunConfig(), None)
    touched = [Rollout(id=rollout, task_id=rollout, split="train", trial=0) for rollout in ("r1", "r2")]

    assert patterns.target(EXPLORE, touched, {}).id == "P1", "among equals, the best supported"
    assert patterns.target(EXPLORE, touched, {"P1": 0.1, "P2": 0.3, "P3": 0.6}).id == "P2", "P3 was not touched"
    assert patterns.target("P3", touched, {"P1": 0.9}).id == "P3", "a pattern arm works on its own pattern"
    assert patterns.target(EXPLORE, [Rollout(id="r9", task_id="r9", split="train", trial=0)], {"P1": 1.0}) is None


def dev_of(passes: list[int], trials: int = 1) -> dict[tuple[str, int], float]:
    """(task, trial) -> reward for tasks t0, t1, ... with the given passes."""
    return {(f"t{i}", trial): float(trial < n) for i, n in enumerate(passes) for trial in range(trials)}


def test_the_root_stays_best_when_no_node_beats_it_on_dev_by_the_paired_test():
    root = dev_of([1] * 4 + [0] * 24)
    edge = dev_of([1] * 6 + [0] * 22)
    best = name_best("root", {"root": root, "edge": edge}, {}, alpha=0.1)
    assert best.node == "root", "2 more passes in 28 pairs is no evidence"
    assert best.challenger == "edge" and best.versus_root.b_better == 2 and best.versus_root.a_better == 0


def test_a_node_that_beats_the_root_on_dev_by_the_paired_test_is_best_and_ties_go_to_fewer_tokens():
    root = dev_of([1] * 4 + [0] * 24)
    strong = dev_of([1] * 14 + [0] * 14)
    best = name_best("root", {"root": root, "strong": strong}, {}, alpha=0.1)
    assert best.node == "strong" and best.versus_root.b_better == 10 and best.versus_root.p_value < 0.01

    twins = name_best(
        "root", {"root": root, "long": strong, "short": dict(strong)}, {"long": 900.0, "short": 300.0}, alpha=0.1
    )
    assert twins.node == "short"
    assert twins.alpha == 0.05, "naming one of two nodes best is a test at the run's alpha, split over both"


def test_a_node_must_beat_the_root_on_the_keys_both_ran_and_the_root_alone_is_best():
    root = dev_of([1] * 4 + [0] * 24)
    elsewhere = {(f"other{i}", 0): 1.0 for i in range(28)}
    assert name_best("root", {"root": root, "elsewhere": elsewhere}, {}, alpha=0.1).node == "root", (
        "no shared key, no evidence"
    )
    alone = name_best("root", {"root": root}, {}, alpha=0.1)
    assert alone.node == "root" and alone.versus_root is None and alone.challenger is None


def test_with_many_nodes_compared_a_single_borderline_win_is_not_enough():
    root = dev_of([0] * 28)
    borderline = dev_of([1] * 6 + [0] * 22)
    assert name_best("root", {"root": root, "n0": borderline}, {}, alpha=0.1).node == "n0", (
        "6 of 6 differing pairs: p = 0.03"
    )
    crowd = {"root": root, "n0": borderline} | {f"n{i}": dict(root) for i in range(1, 10)}
    assert name_best("root", crowd, {}, alpha=0.1).node == "root", "p = 0.03 is above 0.1 / 10"


def test_with_costs_a_node_no_worse_on_dev_and_cheaper_by_the_sign_test_is_best_and_a_worse_one_never():
    root = dev_of([1] * 4 + [0] * 24)
    same, worse = dict(root), dev_of([1] * 2 + [0] * 26)
    costs = {
        "root": {key: 1000.0 + i for i, key in enumerate(root)},
        "same": {key: 600.0 + i for i, key in enumerate(root)},
        "worse": {key: 100.0 for key in root},
    }
    best = name_best("root", {"root": root, "same": same, "worse": worse}, {}, alpha=0.1, costs=costs)
    assert best.node == "same" and best.cost is not None and best.cost.b_cheaper == 28 and best.cost.p_value < 0.05
    assert (
        best.cost.sentence()
        == "614 against 1,014 tokens a rollout (-39%); cheaper on 28 of the 28 keys whose costs "
        + (f"differ, p = {best.cost.p_value:.3g}")
    )
    assert name_best("root", {"root": root, "same": same}, {}, alpha=0.1).node == "root", "passes alone: a tie"
    dearer = {"root": costs["root"], "same": {key: cost + 1 for key, cost in costs["root"].items()}}
    assert name_best("root", {"root": root, "same": same}, {}, alpha=0.1, costs=dearer).node == "root"
