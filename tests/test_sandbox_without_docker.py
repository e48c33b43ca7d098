"""Without Docker: how FROM lines are resolved, what a build context hash depends on, how output is capped."""

from pathlib import Path

import pytest

from harness_evo.config import SandboxConfig
from harness_evo.errors import SandboxUnavailable
from harness_evo.sandbox import get_backend
from harness_evo.sandbox.images import context_hash, resolve_dockerfile, resolve_image
from harness_evo.sandbox.output import CappedOutput

BASE = SandboxConfig().base_image


@pytest.mark.parametrize(
    "image",
    [
        "python:3.13-slim-bookworm",
        "python:3.11-slim",
        "python:3.12",
        "python:3.10-bookworm",
        "docker.io/library/python:3.12-slim",
        "python:3.11-slim@sha256:0123abcd",
        "debian:bookworm",
        "debian:bookworm-slim",
        "debian:12",
        "ubuntu:22.04",
        "ubuntu",
    ],
)
def test_common_python_debian_and_ubuntu_images_become_the_base_image(image):
    assert resolve_image(image, SandboxConfig()) == BASE


@pytest.mark.parametrize(
    "image", ["python:3.11-alpine", "python:2.7", "node:20", "debian:bullseye", "ghcr.io/acme/tool:1"]
)
def test_other_images_are_left_as_they_are(image):
    assert resolve_image(image, SandboxConfig()) == image


def test_configured_aliases_are_glob_patterns_and_come_first():
    config = SandboxConfig(image_aliases={"node:*": "local/node:20", "python:3.13-slim": "local/py313:latest"})
    assert resolve_image("node:20-bookworm", config) == "local/node:20"
    assert resolve_image("docker.io/library/python:3.13-slim", config) == "local/py313:latest"
    assert resolve_image("python:3.12-slim", config) == BASE


def test_a_dockerfile_is_resolved_line_by_line_keeping_stages_flags_and_args():
    dockerfile = (
        "ARG PY=3.12\n"
        "FROM --platform=linux/amd64 python:${PY}-slim AS build\n"
        "RUN echo from python:3.11\n"
        "from build\n"
        "FROM node:20 AS web\n"
        "FROM scratch\n"
    )
    resolved, bases = resolve_dockerfile(dockerfile, SandboxConfig())
    assert resolved.splitlines() == [
        "ARG PY=3.12",
        f"FROM --platform=linux/amd64 {BASE} AS build",
        "RUN echo from python:3.11",
        "from build",
        "FROM node:20 AS web",
        "FROM scratch",
    ]
    assert bases == [BASE, "node:20"]


def test_the_context_hash_changes_with_any_file_the_dockerfile_or_a_base_image(tmp_path: Path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "main.py").write_text("print(1)\n")
    (tmp_path / "Dockerfile").write_text("ignored: the resolved text is hashed instead\n")
    first = context_hash(tmp_path, "FROM base\n", ["sha256:1"])
    assert context_hash(tmp_path, "FROM base\n", ["sha256:1"]) == first
    assert context_hash(tmp_path, "FROM base\nRUN true\n", ["sha256:1"]) != first
    assert context_hash(tmp_path, "FROM base\n", ["sha256:2"]) != first
    (tmp_path / "app" / "main.py").chmod(0o755)
    assert context_hash(tmp_path, "FROM base\n", ["sha256:1"]) != first


def test_capped_output_keeps_head_and_tail_and_counts_what_it_cut():
    output = CappedOutput(limit=10)
    for chunk in (b"abcde", b"fghij", b"klmnopqrst", b"uvwxyz"):
        output.add(chunk)
    assert output.text() == "abcde\n[... 16 characters of output cut ...]\nvwxyz"


def test_capped_output_under_its_limit_is_whole_even_when_a_character_is_split_between_chunks():
    output = CappedOutput(limit=100)
    encoded = "naïve ✓\n".encode()
    output.add(encoded[:3])
    output.add(encoded[3:10])
    output.add(encoded[10:])
    assert output.text(note="[note]") == "naïve ✓\n[note]"


def test_an_unreachable_docker_engine_says_how_to_get_one_and_points_to_the_local_backend(monkeypatch, tmp_path):
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-docker.sock")
    with pytest.raises(SandboxUnavailable) as failure:
        get_backend(SandboxConfig(backend="docker"))
    message = str(failure.value)
    assert "apt-get install -y docker.io" in message and "dockerd" in message and "--sandbox local" in message
    assert "\n" not in message
