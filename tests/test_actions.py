"""Parsing a small model's replies into commands."""

import pytest

from harness_evo.agent.actions import closed, cut, says_done
from harness_evo.harness.actions import FormatError, parse_bash_block


@pytest.mark.parametrize(
    ("reply", "command"),
    [
        ("Let me look.\n```bash\nls -la\n```\n", "ls -la"),
        ("```bash\nls -la", "ls -la"),  # cut off by the stop sequence
        ("```sh\ncat a.txt | wc -l\n```\nthen\n```bash\nrm -rf /\n```", "cat a.txt | wc -l"),
        ("```\necho hi\n```", "echo hi"),
        ("```python\nprint(1)\n```\n```bash\necho ok\n```", "echo ok"),
    ],
)
def test_first_shell_block_is_the_action(reply: str, command: str):
    assert parse_bash_block(reply) == command


@pytest.mark.parametrize("reply", ["I have finished the task.", "```python\nprint(1)\n```", "```bash\n\n```"])
def test_replies_without_a_runnable_block_are_format_errors(reply: str):
    with pytest.raises(FormatError):
        parse_bash_block(reply)


def test_cut_off_block_is_closed_in_the_history():
    assert closed("```bash\nls") == "```bash\nls\n```"
    assert closed("```bash\nls\n```") == "```bash\nls\n```"


def test_done_marker_must_be_the_last_line_of_output():
    assert says_done("result: 3\nTASK_DONE\n")
    assert not says_done("TASK_DONE not yet\nerror")
    assert not says_done("")


def test_long_output_keeps_head_and_tail():
    text = "".join(f"line {i}\n" for i in range(2000))
    shown = cut(text, 600)
    assert len(shown) < 700 and shown.startswith("line 0") and "line 1999" in shown and "characters cut" in shown
