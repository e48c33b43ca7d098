"""The embedded models on llama.cpp's own server: slots per conversation, speculation, every way it can fail."""

import os
import shutil
import signal
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from harness_evo.agent.executor import EMBEDDED_WORKERS, Executor, rollout_workers
from harness_evo.config import SMALL_MODEL, EmbeddedConfig, ModelsConfig, RoleModel, RunConfig
from harness_evo.harness import Harness
from harness_evo.llm import LLM, ModelError, llama
from harness_evo.llm import process as servers
from harness_evo.llm.slots import Slots
from harness_evo.sandbox import get_backend
from harness_evo.store import RunStore
from harness_evo.taskset import load_suite

ROOT = Path(__file__).parents[1]
SOLVER = "local/qwen2.5-coder-1.5b"


def on_llama_server(model: str = SMALL_MODEL, slots: int = 2, **embedded) -> ModelsConfig:
    return ModelsConfig(
        solver=RoleModel(model=model, max_tokens=24),
        embedded=EmbeddedConfig(server="llama-server", slots=slots, **embedded),
    )


def test_a_thread_gets_its_own_slot_back_and_callers_beyond_the_slots_wait():
    slots = Slots(2, routed=True)
    held: dict[str, set[int]] = {}
    inside, most = 0, 0
    lock = threading.Lock()

    def caller(name: str) -> None:
        nonlocal inside, most
        for _ in range(5):
            with slots.hold() as slot:
                with lock:
                    inside += 1
                    most = max(most, inside)
                held.setdefault(name, set()).add(slot)
                time.sleep(0.01)
                with lock:
                    inside -= 1

    pair = [threading.Thread(target=caller, args=(name,)) for name in ("a", "b")]
    for thread in pair:
        thread.start()
    for thread in pair:
        thread.join()
    assert len(held["a"]) == 1 and len(held["b"]) == 1 and held["a"] != held["b"]

    with ThreadPoolExecutor(5) as pool:  # five callers, two slots: never more than two requests at the server
        list(pool.map(caller, "cdefg"))
    assert most == 2


def test_without_a_built_llama_server_the_error_says_how_to_get_one(tmp_path):
    models = on_llama_server(binary=tmp_path / "nowhere" / "llama-server")
    with LLM(models, cache=False) as llm, pytest.raises(ModelError, match="scripts/setup.sh"):
        llm.complete("solver", [{"role": "user", "content": "hi"}])


def test_auto_takes_llama_server_when_it_is_built_and_the_python_server_otherwise(tmp_path):
    assert llama.server_kind(EmbeddedConfig(binary=shutil.which("true"))) == "llama-server"
    absent = EmbeddedConfig(binary=None)
    expected = "llama-server" if llama.llama_server_binary(absent) else "llama-cpp-python"
    assert llama.server_kind(absent) == expected
    assert rollout_workers(RunConfig(models=ModelsConfig(embedded=EmbeddedConfig(server="llama-cpp-python")))) == 1
    on_server = RunConfig(models=ModelsConfig(embedded=EmbeddedConfig(server="llama-server")))
    assert on_server.run_models(rollout_workers(on_server)).embedded.slots == EMBEDDED_WORKERS


def test_slots_the_memory_cannot_hold_are_refused_in_one_line():
    models = on_llama_server(slots=4096)
    with LLM(models, cache=False) as llm, pytest.raises(ModelError) as refused:
        llm.complete("solver", [{"role": "user", "content": "hi"}])
    assert "4096 slots" in str(refused.value) and "\n" not in str(refused.value)


def test_a_draft_that_is_not_an_embedded_model_is_refused():
    models = on_llama_server(draft="openai/gpt-4o-mini")
    with LLM(models, cache=False) as llm, pytest.raises(ModelError, match="local/NAME"):
        llm.complete("solver", [{"role": "user", "content": "hi"}])


@pytest.mark.embedded
def test_two_conversations_at_once_each_keep_their_own_continuation_and_prompt(tmp_path):
    def conversation(word: str) -> tuple[list[str], list[dict]]:
        store = RunStore.create(tmp_path / word, "eval")
        messages = [
            {"role": "system", "content": "You are a helpful assistant. " * 20},
            {"role": "user", "content": f"My code word is {word}. Reply with the word 'noted' only."},
        ]
        replies = []
        with LLM(on_llama_server(), store=store, cache=False) as llm:  # the server of `shared`, a slot per thread
            for _ in range(3):
                reply = llm.complete("solver", messages, temperature=0)
                replies.append(reply.text)
                messages += [
                    {"role": "assistant", "content": reply.text},
                    {"role": "user", "content": "What is my code word? Answer with the code word only."},
                ]
        return replies, store.rows("llm_calls")

    with LLM(on_llama_server(), cache=False) as shared, ThreadPoolExecutor(2) as pool:
        server = shared.endpoint(shared.models.solver).server
        (zebra, zebra_calls), (mango, mango_calls) = pool.map(conversation, ["ZEBRA", "MANGO"])
        log = server.log.read_text()
    assert "MANGO" not in " ".join(zebra) and "ZEBRA" not in " ".join(mango)
    for calls in (zebra_calls, mango_calls):  # each next turn found its own conversation's prompt in its slot
        assert len(calls) == 3
        assert all(later["tokens_cached"] >= earlier["tokens_in"] - 1 for earlier, later in zip(calls, calls[1:]))
    assert "selected slot by id (0)" in log and "selected slot by id (1)" in log


@pytest.mark.embedded
def test_a_rollouts_next_turn_reads_its_prompt_from_its_slot(tmp_path):
    store = RunStore.create(tmp_path / "runs", "eval")
    messages = [
        {"role": "system", "content": "You answer in one short sentence. " * 30},
        {"role": "user", "content": "Name a colour."},
    ]
    with LLM(on_llama_server(slots=1), store=store, cache=False) as llm:
        first = llm.complete("solver", messages, temperature=0)
        llm.complete(
            "solver",
            [*messages, {"role": "assistant", "content": first.text}, {"role": "user", "content": "Another one."}],
            temperature=0,
        )
    calls = store.rows("llm_calls")
    assert calls[-1]["tokens_cached"] >= calls[0]["tokens_in"] - 1, "the second turn evaluated the whole prompt again"


@pytest.mark.embedded
@pytest.mark.parametrize("speculation", [{"draft": SMALL_MODEL}, {"ngram": True}], ids=["draft", "ngram"])
def test_speculation_drafts_tokens_records_their_acceptance_and_stops_with_its_server(tmp_path, speculation):
    # Greedy replies with and without speculation may differ across CPUs (batched evaluation rounds differently), so
    # what is checked is what llama.cpp guarantees: the draft is used, its acceptance is counted, replies are replies.
    # The text to copy is long enough for n-gram speculation (a 24-token match, then at least 48 tokens to draft).
    text = " ".join(
        f"Step {n}: copy the file data{n}.txt into the folder backup{n} and check its size." for n in range(1, 9)
    )
    store = RunStore.create(tmp_path / "runs", "eval")
    with LLM(on_llama_server(model=SOLVER, slots=1, **speculation), store=store, cache=False) as llm:
        reply = llm.complete(
            "solver",
            [{"role": "user", "content": f"Repeat this text exactly, nothing else:\n\n{text}"}],
            temperature=0,
            max_tokens=200,
        )
        server = llm.endpoint(llm.models.solver).server
    [call] = store.rows("llm_calls")
    assert reply.text.strip() and call["error"] is None and call["tokens_out"] > 0
    assert call["tokens_drafted"] > 0 and 0 <= call["tokens_accepted"] <= call["tokens_drafted"]
    assert not server.alive and server.process.pid not in [record["pid"] for record in servers.running_servers()]


@pytest.mark.embedded
def test_a_port_taken_before_the_server_binds_it_gets_another(monkeypatch):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        ports = iter([taken.getsockname()[1]])
        real = servers.free_port
        monkeypatch.setattr(servers, "free_port", lambda: next(ports, None) or real())
        with LLM(on_llama_server(slots=1), cache=False) as llm:
            assert llm.complete("solver", [{"role": "user", "content": "Say ok."}]).text
            assert llm.endpoint(llm.models.solver).server.port != taken.getsockname()[1]


@pytest.mark.embedded
def test_a_server_that_dies_mid_rollout_fails_it_as_infrastructure_once_and_the_run_goes_on(tmp_path):
    config = RunConfig(
        harness=ROOT / "harnesses/bash-agent", tasks=ROOT / "tests/fixtures/eval-tasks", sandbox={"backend": "local"}
    )
    suite = load_suite(config.tasks)
    task = suite.tasks["greeting"]
    store = RunStore.create(tmp_path / "runs", "eval")
    harness = Harness.load(config.harness)
    killed = threading.Event()

    def kill_while_it_answers() -> None:
        while True:
            mine = [record for record in servers.running_servers() if record["owner"] == os.getpid()]
            if mine and "launch_slot_" in Path(mine[0]["log"]).read_text(errors="replace"):
                os.kill(mine[0]["pid"], signal.SIGKILL)
                return killed.set()
            time.sleep(0.05)

    with LLM(on_llama_server(slots=1), store=store, cache=False) as llm:
        threading.Thread(target=kill_while_it_answers, daemon=True).start()
        executor = Executor(store, get_backend(config.sandbox, run_id=store.id), suite, llm=llm, workers=1)
        [row] = executor.run(harness, [task], 1)
        [later] = executor.run(harness, [task], [1])
    assert killed.is_set()
    failed = [call["error"] for call in store.rows("llm_calls") if call["error"]]
    assert failed and "died" in failed[0]
    assert row.exit_reason != "model_error", "the rollout was not tried again on a new server"
    assert later.exit_reason != "model_error" and later.steps >= 1


@pytest.mark.embedded
@pytest.mark.usefixtures("user_cache")
def test_the_response_cache_tells_the_replies_of_the_two_embedded_servers_apart():
    ask = [{"role": "user", "content": "Say ok."}]

    def reply(server: str):
        models = ModelsConfig(
            solver=RoleModel(model=SMALL_MODEL, max_tokens=8), embedded=EmbeddedConfig(server=server, slots=1)
        )
        with LLM(models, cache=True) as llm:
            return llm.complete("solver", ask, temperature=0)

    assert not reply("llama-cpp-python").cached
    assert not reply("llama-server").cached, "llama-server was answered with llama-cpp-python's reply"
    assert reply("llama-server").cached and reply("llama-cpp-python").cached
