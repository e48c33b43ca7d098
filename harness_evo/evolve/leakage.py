"""What an edit must not carry over from the training tasks: their ids, file names and long verbatim strings.

The proposer sees failures of training tasks, so it is tempted to write their answers into the harness.
An index of the train tasks' instructions, tests and reference solutions finds such quotes in the text an
edit adds; text the parent harness already had is never held against the edit.
"""

import re
from pathlib import Path

from harness_evo.taskset import Task

WORD = re.compile(r"[A-Za-z0-9_]+")
FILE_NAME = re.compile(r"(?<![\w.-])[\w-]{2,}\.[A-Za-z][A-Za-z0-9]{0,4}\b")
"""A file name with an extension; a bare name (`env`, `report`, `sync`) is a common word, not evidence of a leak."""
QUOTED = re.compile(r"""(["'])([^"'$`\n]{8,200})\1""")
GENERIC_FILES = {"Dockerfile", "test.sh", "solve.sh", "task.toml", "instruction.md", "reward.txt", "suite.toml"}
MAX_FILE_BYTES = 200_000

SOURCES = {
    "instruction": "quotes the instruction of training task {task}",
    "tests": "quotes the tests of training task {task} (its expected output)",
    "solution": "hard-codes the answer of training task {task} (its reference solution)",
}


class LeakIndex:
    """N-grams, quoted literals and file names of a set of training tasks."""

    def __init__(self, tasks: list[Task], n: int = 8):
        self.n = n
        self.task_ids = {task.id for task in tasks}
        self.ngrams: dict[tuple[str, ...], tuple[str, str]] = {}
        self.literals: dict[str, tuple[str, str]] = {}
        self.file_names: dict[str, str] = {}
        for task in sorted(tasks, key=lambda task: task.id):
            self._index(task.id, "instruction", task.instruction)
            self._index_names(task.id, task.instruction)
            for source, folder in (("tests", task.tests_dir), ("solution", task.solution_dir)):
                for text in read_texts(folder):
                    self._index(task.id, source, text)
            for path in task.environment_dir.rglob("*") if task.environment_dir.is_dir() else []:
                if path.is_file() and path.name not in GENERIC_FILES and FILE_NAME.fullmatch(path.name):
                    self.file_names.setdefault(path.name, task.id)

    def _index(self, task_id: str, source: str, text: str) -> None:
        for gram in ngrams(text, self.n):
            self.ngrams.setdefault(gram, (task_id, source))
        for match in QUOTED.finditer(text):
            literal = match.group(2).strip()
            if len(literal) >= 8 and not literal.startswith(("/", "-")):
                self.literals.setdefault(literal, (task_id, source))

    def _index_names(self, task_id: str, text: str) -> None:
        for name in FILE_NAME.findall(text):
            if name not in GENERIC_FILES:
                self.file_names.setdefault(name, task_id)

    def leaks(self, added: str, known: str = "", code: bool = False) -> list[str]:
        """One sentence per kind of leak found in `added`, ignoring anything that also occurs in `known`. When `added`
        is `code` (a tool's script), its words are not matched against the tests' and solutions' code: scripts share
        boilerplate (`import sys from pathlib import Path def main`) without quoting anything."""
        reasons: dict[str, str] = {}
        known_grams = set(ngrams(known, self.n))
        for gram in ngrams(added, self.n):
            if gram in self.ngrams and gram not in known_grams and (not code or self.ngrams[gram][1] == "instruction"):
                task, source = self.ngrams[gram]
                reasons.setdefault(f"{source}:{task}", f'{SOURCES[source].format(task=task)}: "{" ".join(gram)}"')
        for literal, (task, source) in self.literals.items():
            if literal in added and literal not in known:
                reasons.setdefault(f"{source}:{task}", f'{SOURCES[source].format(task=task)}: "{literal}"')
        for task in sorted(self.task_ids):
            if re.search(rf"(?<![\w-]){re.escape(task)}(?![\w-])", added) and task not in known:
                reasons.setdefault(f"id:{task}", f"names the training task {task}; edits must help on unseen tasks")
        for name, task in sorted(self.file_names.items()):
            if re.search(rf"(?<![\w.-]){re.escape(name)}\b", added) and name not in known:
                reasons.setdefault(
                    f"file:{name}",
                    f"names the file {name} of training task {task}; edits must not depend on one task's files",
                )
        return list(reasons.values())


def ngrams(text: str, n: int) -> list[tuple[str, ...]]:
    words = [word.lower() for word in WORD.findall(text)]
    return [tuple(words[i : i + n]) for i in range(len(words) - n + 1)]


def read_texts(folder: Path) -> list[str]:
    """The text of every small text file under `folder` (binary and huge files are skipped)."""
    texts = []
    for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
        if path.is_file() and path.stat().st_size <= MAX_FILE_BYTES:
            try:
                texts.append(path.read_text())
            except UnicodeDecodeError:
                continue
    return texts
