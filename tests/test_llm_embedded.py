"""The embedded model: GGUF assembly from data packages,
and structured output from the real model (marked `embedded`)."""

import hashlib

import pytest
from pydantic import BaseModel

from harness_evo.config import ModelsConfig, RoleModel
from harness_evo.llm import LLM, ModelError, embedded
from harness_evo.store.run import RunStore

SMALL = "local/qwen2.5-coder-0.5b"


@pytest.fixture
def tiny_model(tmp_path, monkeypatch, user_cache):
    """A 3-part 'model' carried by two importable data packages, registered as local/tiny."""
    contents = [b"GGUF" + b"a" * 60, b"b" * 64, b"c" * 10]
    for package, parts in (("tiny_weights_part1", contents[:2]), ("tiny_weights_part2", contents[2:])):
        data = tmp_path / "site" / package / "data"
        data.mkdir(parents=True)
        (data.parent / "__init__.py").write_text("")
        for number, part in enumerate(parts, start=1 if package.endswith("1") else 3):
            (data / f"part{number:02d}.bin").write_bytes(part)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    whole = b"".join(contents)
    gguf = embedded.Gguf(
        "tiny", ("tiny_weights_part1", "tiny_weights_part2"), len(whole), hashlib.sha256(whole).hexdigest(), 1024
    )
    monkeypatch.setitem(embedded.EMBEDDED, "tiny", gguf)
    return whole


def test_the_gguf_is_reassembled_once_from_its_packages_in_order(tiny_model):
    path = embedded.ensure("tiny")
    assembled = path.stat().st_mtime_ns
    assert path == embedded.gguf_path("tiny") and path.read_bytes() == tiny_model
    assert embedded.ensure("tiny").stat().st_mtime_ns == assembled
    assert [p.name for p in path.parent.iterdir()] == ["tiny.gguf", "tiny.lock"]


def test_parts_that_do_not_match_the_recorded_sha256_are_refused(tiny_model, monkeypatch):
    broken = embedded.Gguf("tiny", ("tiny_weights_part1", "tiny_weights_part2"), len(tiny_model), "0" * 64, 1024)
    monkeypatch.setitem(embedded.EMBEDDED, "tiny", broken)
    with pytest.raises(ModelError, match="sha256"):
        embedded.ensure("tiny")
    assert not embedded.gguf_path("tiny").exists()


def test_missing_packages_say_how_to_install_the_local_extra(tiny_model, monkeypatch):
    missing = embedded.Gguf("tiny", ("tiny_weights_part1", "no_such_weights_part2"), len(tiny_model), "0" * 64, 1024)
    monkeypatch.setitem(embedded.EMBEDDED, "tiny", missing)
    with pytest.raises(ModelError, match=r"harness-evo\[local\]"):
        embedded.ensure("tiny")


class Command(BaseModel):
    command: str
    explanation: str


@pytest.mark.embedded
def test_structured_output_from_the_embedded_model_is_a_valid_object(tmp_path):
    store = RunStore.create(tmp_path / "runs", "eval")
    with LLM(ModelsConfig(critic=RoleModel(model=SMALL, max_tokens=96)), store=store, cache=False) as llm:
        reply = llm.complete(
            "critic",
            [
                {
                    "role": "user",
                    "content": (
                        'Which bash command lists the files of the current folder? Answer as JSON: {"command": ..., '
                        '"explanation": ...}'
                    ),
                }
            ],
            output=Command,
            seed=0,
        )
    assert isinstance(reply.parsed, Command) and reply.error is None
    assert reply.parsed.command.strip()
    [call] = store.rows("llm_calls")
    assert call["tokens_in"] > 10 and call["tokens_out"] > 3 and call["cost"] == 0.0
