"""`harness-evo config` prints every setting with its default and what it does; docs/configuration.md is the same
generated page, kept in sync."""

import shutil
import tomllib
from pathlib import Path

import pytest

from harness_evo.config import RunConfig
from harness_evo.harness import AgentSettings, Harness

DOC = Path(__file__).parents[1] / "docs" / "configuration.md"


def test_the_printed_defaults_are_a_config_file_that_loads_as_the_defaults_with_every_field_documented(cli):
    result = cli("config", "--defaults")

    assert result.exit_code == 0, result.output
    assert RunConfig.model_validate(tomllib.loads(result.output)) == RunConfig(), (
        "the file a user starts from changes nothing"
    )
    text = " ".join(" ".join(line.removeprefix("# ") for line in result.output.splitlines()).split())
    assert "[budget] When the evolution stops: whichever limit is reached first." in text
    assert "Wall time of the run in seconds. max_wall_s = 900.0" in text
    assert "Trials per task when comparing child and parent. trials = 3" in text
    assert 'One of: sign-test, strict-sum, none. rule = "sign-test"' in text
    assert "threads = (unset)" in text, "an unset setting is shown, commented out"


def test_a_config_file_is_printed_with_what_it_sets_and_every_default_it_leaves(cli, tmp_path: Path):
    path = tmp_path / "run.toml"
    path.write_text(
        '[budget]\nmax_wall_s = 60.0\nmax_dollars = {proposer = 2.0}\n[models.solver]\nmodel = "openai/gpt-4o-mini"\n'
        '[sandbox.image_aliases]\n"python:3.11-slim" = "harness-evo/base:latest"\n'
    )

    result = cli("config", "--config", path)

    assert result.exit_code == 0, result.output
    printed = RunConfig.model_validate(tomllib.loads(result.output))
    assert printed == RunConfig.load(path) and printed.budget.max_wall_s == 60.0 and printed.acceptance.trials == 3
    assert printed.sandbox.image_aliases == {"python:3.11-slim": "harness-evo/base:latest"}


@pytest.mark.parametrize("args", [[], ["--defaults", "--config", "x.toml"]])
def test_config_without_one_source_is_one_line_saying_what_to_pass(cli, args):
    result = cli("config", *args)

    assert result.exit_code != 0 and "pass --defaults" in str(result.exception or result.output)


def test_docs_configuration_md_is_what_config_defaults_markdown_prints(cli):
    result = cli("config", "--defaults", "--markdown")

    assert result.exit_code == 0, result.output
    assert DOC.read_text() == result.output, (
        "regenerate it: harness-evo config --defaults --markdown > docs/configuration.md"
    )
    assert "| `max_wall_s` | `900.0` | Wall time of the run in seconds. |" in result.output
    assert (
        "## `[agent]` of harness.toml" in result.output
        and "| `loop_guard_repeats` | `3` | With `loop_guard`," in result.output
    )


def test_the_printed_harness_defaults_are_a_harness_toml_that_loads_as_a_harness_with_every_setting_documented(
    cli, tmp_path: Path
):
    result = cli("config", "--defaults", "--harness")

    assert result.exit_code == 0, result.output
    folder = shutil.copytree(Path(__file__).parents[1] / "harnesses" / "bash-agent", tmp_path / "harness")
    (folder / "harness.toml").write_text(result.output)
    harness = Harness.load(folder)
    assert harness.agent == AgentSettings() and harness.name == "my-harness"
    text = " ".join(" ".join(line.removeprefix("# ") for line in result.output.splitlines()).split())
    for setting in (
        "discovery",
        "discovery_commands",
        "discovery_head_lines",
        "loop_guard",
        "loop_guard_repeats",
        "missing_hint",
    ):
        assert f"{setting} = " in text
    assert "the episode ends (exit reason `loop_guard`) when this many commands have repeated" in text
