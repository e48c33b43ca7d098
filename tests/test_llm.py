"""The model layer, driven by the scripted test model: replies, structured output, repair, cache, accounting."""

import os
import subprocess
import sys
import textwrap

import litellm
import pytest
from pydantic import BaseModel

from harness_evo.config import ModelsConfig, RoleModel
from harness_evo.llm import LLM, ModelError, ModelUnavailable, scripted
from harness_evo.llm.cache import request_key


class Verdict(BaseModel):
    accept: bool
    reason: str


pytestmark = pytest.mark.usefixtures("user_cache")


def models(name: str, **settings) -> ModelsConfig:
    role = RoleModel(model=f"scripted/{name}")
    return ModelsConfig(solver=role, analyzer=role, proposer=role, critic=role, backoff_s=0.0, **settings)


def ask(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def test_scripted_replies_come_in_order_and_functions_see_the_messages():
    scripted.register("order", ["first", "second"])
    scripted.register("echo", lambda messages: messages[-1]["content"].upper())
    with LLM(models("order")) as llm:
        replies = [llm.complete("solver", ask(f"question {i}")).text for i in range(2)]
    with LLM(models("echo")) as llm:
        echoed = llm.complete("critic", ask("shout this")).text
    assert replies == ["first", "second"]
    assert echoed == "SHOUT THIS"


def test_a_stop_sequence_cuts_the_reply_as_a_real_model_would():
    scripted.register("stops", ["```bash\nls\n```\nand then I imagine the output"])
    with LLM(models("stops")) as llm:
        reply = llm.complete("solver", ask("go"), stop=["\n```\n"])
    assert reply.text == "```bash\nls"


def test_structured_output_is_parsed_from_a_fenced_json_block():
    scripted.register("fenced", ['Here it is:\n```json\n{"accept": true, "reason": "general"}\n```'])
    with LLM(models("fenced")) as llm:
        reply = llm.complete("critic", ask("judge"), output=Verdict)
    assert reply.parsed == Verdict(accept=True, reason="general")
    assert reply.error is None


def test_a_json_string_with_raw_newlines_in_it_is_understood_without_a_repair_round():
    scripted.register("raw-newlines", ['{"accept": true, "reason": "general:\n\tit names no task"}'])
    with LLM(models("raw-newlines")) as llm:
        reply = llm.complete("critic", ask("judge"), output=Verdict)
    assert reply.parsed == Verdict(accept=True, reason="general:\n\tit names no task")
    assert scripted.calls("raw-newlines") == 1


def test_an_invalid_reply_gets_one_repair_round_that_shows_the_error():
    seen = []
    replies = iter(['{"accept": "maybe"}', '{"accept": false, "reason": "too specific"}'])
    scripted.register("repairs", lambda messages: seen.append(messages) or next(replies))
    with LLM(models("repairs")) as llm:
        reply = llm.complete("critic", ask("judge"), output=Verdict)
    assert reply.parsed == Verdict(accept=False, reason="too specific")
    assert len(seen) == 2
    repair = seen[1][-1]["content"]
    assert "accept" in repair and "reason" in repair and "Field required" in repair
    assert seen[1][-2] == {"role": "assistant", "content": '{"accept": "maybe"}'}


def test_garbage_twice_is_a_recorded_failure_not_an_exception(store):
    scripted.register("garbage", ["no json here", "still none"])
    with LLM(models("garbage"), store=store) as llm:
        reply = llm.complete("analyzer", ask("explain"), output=Verdict)
    assert reply.parsed is None and reply.text == "still none"
    assert "JSON" in reply.error
    assert scripted.calls("garbage") == 2
    calls = store.rows("llm_calls", order_by="ts")
    assert [call["role"] for call in calls] == ["analyzer", "analyzer"]
    assert calls[0]["error"].startswith("invalid output, repairing:")
    assert calls[1]["error"].startswith("invalid output:")


def test_the_cache_answers_an_identical_second_call_without_reaching_the_model(store):
    scripted.register("cached", ["the only answer"])
    with LLM(models("cached"), store=store) as llm:
        first = llm.complete("solver", ask("same question"), seed=7)
        second = llm.complete("solver", ask("same question"), seed=7)
    assert (first.text, second.text) == ("the only answer", "the only answer")
    assert (first.cached, second.cached) == (False, True)
    assert scripted.calls("cached") == 1
    assert [call["cache_hit"] for call in store.rows("llm_calls", order_by="ts")] == [0, 1]


def test_a_different_seed_or_disabled_cache_reaches_the_model_again():
    scripted.register("fresh", ["a", "b", "c"])
    with LLM(models("fresh")) as llm:
        llm.complete("solver", ask("q"), seed=1)
        llm.complete("solver", ask("q"), seed=2)
    with LLM(models("fresh"), cache=False) as llm:
        llm.complete("solver", ask("q"), seed=1)
    assert scripted.calls("fresh") == 3


def test_a_response_schema_whose_fields_changed_order_is_a_new_request():
    def request(*fields: str, seed: int = 0) -> dict:
        schema = {"properties": {field: {"type": "string"} for field in fields}}
        return {
            "messages": ask("q"),
            "params": {"seed": seed, "response_format": {"type": "json_object", "schema": schema}},
        }

    assert request_key(request("name", "text")) != request_key(request("text", "name")), (
        "the decoder writes fields in this order"
    )
    assert request_key({"seed": 1, "stop": None}) == request_key({"stop": None, "seed": 1})


def test_registering_a_name_again_is_never_answered_from_the_old_script():
    scripted.register("again", ["old"])
    with LLM(models("again")) as llm:
        before = llm.complete("solver", ask("q")).text
        scripted.register("again", ["new"])
        after = llm.complete("solver", ask("q")).text
    assert (before, after) == ("old", "new")


def test_tokens_and_cost_of_every_call_land_in_llm_calls(store):
    scripted.register("counted", ["four words of reply"])
    with LLM(models("counted"), store=store) as llm:
        reply = llm.complete("proposer", ask("a question of several tokens"))
    [call] = store.rows("llm_calls")
    assert call["model"] == "scripted/counted"
    assert call["tokens_in"] == reply.tokens_in > 5
    assert call["tokens_out"] == reply.tokens_out == 4
    assert call["cost"] == reply.cost == 0.0
    assert call["latency_s"] >= 0 and call.get("error") is None


def test_transient_failures_are_retried_and_then_reported_as_unavailable(store):
    rate_limited = litellm.RateLimitError("slow down", llm_provider="openai", model="x")
    scripted.register("flaky", [rate_limited, "fine"])
    scripted.register("down", [rate_limited] * 3)
    with LLM(models("flaky", retries=2)) as llm:
        recovered = llm.complete("solver", ask("q"))
    with LLM(models("down", retries=2), store=store) as llm, pytest.raises(ModelUnavailable, match="after 3 attempts"):
        llm.complete("solver", ask("q"))
    assert recovered.text == "fine"
    assert "slow down" in store.rows("llm_calls")[0]["error"]


def test_a_too_long_request_is_a_one_line_model_error():
    scripted.register(
        "small", [litellm.ContextWindowExceededError("prompt is 9000 tokens", model="x", llm_provider="openai")]
    )
    with LLM(models("small")) as llm, pytest.raises(ModelError, match="context window"):
        llm.complete("solver", ask("q"))


def test_a_hosted_model_without_its_api_key_names_the_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    config = ModelsConfig(solver=RoleModel(model="openai/gpt-4o-mini"))
    with LLM(config) as llm, pytest.raises(ModelError, match="OPENAI_API_KEY"):
        llm.complete("solver", ask("q"))


def test_a_secret_parameter_is_read_from_the_environment_variable_it_names_at_the_call(monkeypatch):
    sent, completion = [], litellm.completion
    monkeypatch.setattr(
        litellm, "completion", lambda **kwargs: sent.append(kwargs) or completion(**kwargs, mock_response="fine")
    )
    config = ModelsConfig(solver=RoleModel(model="openai/gpt-4o-mini", params={"api_key": "env:MY_GATEWAY_KEY"}))
    monkeypatch.setenv("MY_GATEWAY_KEY", "sk-from-the-environment")
    with LLM(config) as llm:
        llm.complete("solver", ask("q"))
    assert sent[0]["api_key"] == "sk-from-the-environment"

    monkeypatch.delenv("MY_GATEWAY_KEY")
    with (
        LLM(config) as llm,
        pytest.raises(ModelError, match="its params name the environment variable MY_GATEWAY_KEY, which is not set"),
    ):
        llm.complete("solver", ask("q"))


def test_an_unknown_model_is_a_one_line_model_error():
    with (
        LLM(ModelsConfig(solver=RoleModel(model="nonsense-provider/some-model"))) as llm,
        pytest.raises(ModelError, match="unknown model"),
    ):
        llm.complete("solver", ask("q"))
    with (
        LLM(ModelsConfig(solver=RoleModel(model="local/gpt-9"))) as llm,
        pytest.raises(ModelError, match="local/qwen2.5-coder-0.5b"),
    ):
        llm.complete("solver", ask("q"))


def test_unregistered_scripted_model_says_how_to_register():
    with LLM(models("never-registered")) as llm, pytest.raises(ModelError, match="scripted.register"):
        llm.complete("solver", ask("q"))


@pytest.mark.slow
def test_the_model_layer_never_reaches_for_the_network(tmp_path):
    """litellm fetches its cost map and more at import unless told otherwise; any connection attempt here fails."""
    child = textwrap.dedent("""\
        import socket

        attempts = []

        def refuse(*args, **kwargs):
            attempts.append(args)
            raise OSError("no network in this test")

        socket.socket.connect = socket.socket.connect_ex = refuse
        socket.create_connection = socket.getaddrinfo = refuse

        from harness_evo.config import ModelsConfig, RoleModel
        from harness_evo.llm import LLM, scripted

        scripted.register("offline", ["fine"])
        role = RoleModel(model="scripted/offline")
        with LLM(ModelsConfig(solver=role)) as llm:
            reply = llm.complete("solver", [{"role": "user", "content": "hi"}])
        print(reply.text, reply.cost, len(attempts))
    """)
    run = subprocess.run(
        [sys.executable, "-c", child],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HARNESS_EVO_CACHE": str(tmp_path)},
    )
    assert run.stdout.split() == ["fine", "0.0", "0"], run.stderr[-2000:]
