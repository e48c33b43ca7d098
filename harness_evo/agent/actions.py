"""What the agent loop reads in replies and outputs besides the action format (harness/actions.py): where generation
stops, that the agent says it has finished, which programs a command runs, which program an output says is missing;
and how a long output is cut for the model."""

import re
import shlex

from harness_evo.harness.actions import DONE_MARKER

NOT_FOUND = re.compile(r"^\S*sh: (?:line )?(?:\d+: )?([a-z][\w.+-]*): (?:command )?not found$", re.MULTILINE)
"""How bash (`bash: line 2: jq: command not found`) and sh (`sh: 1: jq: not found`) report a missing program; a
capitalised or numeric "program" is output the agent ran as a command (`Exit`, `2026-03-05`), not a program."""
STOP_SEQUENCES = ["\n```\n"]
"""Generation stops after the first closed code block; the rest of a small model's reply is noise."""


def closed(reply: str) -> str:
    """The reply as the model meant it: a block cut off by a stop sequence gets its closing fence back."""
    return reply if reply.count("```") % 2 == 0 else reply.rstrip() + "\n```"


def cut(text: str, limit: int) -> str:
    """Keep the head and the tail of a long output, saying how much was left out."""
    if len(text) <= limit:
        return text
    head, tail = text[: limit * 2 // 3], text[-(limit // 3) :]
    return f"{head}\n[... {len(text) - len(head) - len(tail)} characters cut ...]\n{tail}"


def says_done(output: str) -> bool:
    lines = output.strip().splitlines()
    return bool(lines) and lines[-1].strip() == DONE_MARKER


def runs_program(action: str, program: str) -> bool:
    """Some line of the command `action` runs `program` (not only names it, as `apt-get install sqlite3` does)."""
    return any(re.search(running(program), line) for line in command_lines(action))


def running(program: str) -> str:
    """A regex for a command line that runs `program`: as its command, after a shell operator, or under sudo."""
    return rf"(?:^|[;&|(`]\s*|\bsudo\s+){re.escape(program)}(?:\s|$)"


def command_lines(action: str) -> list[str]:
    return [line.split("#")[0].strip() for line in action.splitlines()]


SHELL_WORDS = frozenset(
    {"if", "then", "else", "elif", "do", "while", "until", "!", "{", "time", "sudo", "exec", "nohup", "env"}
)
"""Words that open a shell construct or run the command after them: the program comes next."""
CLOSING_WORDS = frozenset({"fi", "done", "esac", "}", "for", "case"})
"""Words after which no program comes before the next operator (a loop's variable and words, a redirection)."""
ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=")
OPERATOR_CHARS = ";&|()<>"
HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?")


def words(line: str) -> list[str]:
    """A command line's words and shell operators (`;`, `&&`, `|`, `(`, ...), quotes removed; split on blanks when
    its quotes do not close."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:
        return line.split()


def programs(action: str) -> list[str]:
    """The programs the command `action` runs, in order: the first word of each line and of each part after a shell
    operator (as `running` reads a line), past shell keywords, `sudo` and variable assignments, as a file name without
    its folder. Here-document bodies are text, not commands."""
    found, heredoc = [], None
    for line in command_lines(action):
        if heredoc is not None:
            heredoc = None if line == heredoc else heredoc
            continue
        if match := HEREDOC.search(line):
            heredoc = match.group(1)
        expect, target = True, False
        for word in words(line):
            if set(word) <= set(OPERATOR_CHARS):
                expect, target = (expect, True) if set(word) & set("<>") else (word != ")", False)
                continue
            word = word.strip("`")
            if target or not expect or not word:
                target = False
                continue
            if word in CLOSING_WORDS:
                expect = False
            elif not (word in SHELL_WORDS or ASSIGNMENT.match(word)):
                found.append(word.rsplit("/", 1)[-1] or word)
                expect = False
    return found
