"""Prints 0.5 for each part done: build/ and *.log untracked but kept on disk; ignored (old rules kept) and committed."""

import subprocess
import sys
from pathlib import Path

REPO = Path("/app/tool")
SOURCES = {".gitignore", "README.md", "Makefile", "src/main.py", "src/util.py"}
GENERATED = {
    "build/tool": "\x7fELF fake binary for tests\n",
    "build/obj/main.o": "object code of main\n",
    "build/obj/util.o": "object code of util\n",
    "build.log": "2024-04-02 11:02:10 build started\n2024-04-02 11:02:14 build finished\n",
    "logs/run.log": "2024-04-02 11:05:00 run ok\n",
    "src/debug.log": "debug output\n",
}
MUST_BE_IGNORED = ["build/new.o", "build/obj/other.o", "new.log", "logs/2024/today.log", "src/__pycache__/main.cpython-311.pyc"]
MUST_NOT_BE_IGNORED = ["src/new_module.py", "docs/build-notes.md", "catalog.txt"]


def git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)


def untracked_but_kept() -> list[str]:
    tracked = git("ls-tree", "-r", "--name-only", "HEAD")
    if tracked.returncode != 0:
        return [f"no commit to read: {tracked.stderr.strip()}"]
    files = set(tracked.stdout.split())
    problems = [f"{path} is still tracked" for path in sorted(files & GENERATED.keys())]
    problems += [f"{path} is no longer tracked" for path in sorted(SOURCES - files)]
    for path, text in GENERATED.items():
        if not (REPO / path).is_file() or (REPO / path).read_text(errors="replace") != text:
            problems.append(f"{path} was removed or changed on disk")
    return problems


def ignored_and_committed() -> list[str]:
    problems = [f"{path} would not be ignored" for path in MUST_BE_IGNORED if git("check-ignore", "-q", "--no-index", path).returncode != 0]
    problems += [f"{path} would be ignored" for path in MUST_NOT_BE_IGNORED if git("check-ignore", "-q", "--no-index", path).returncode == 0]
    status = git("status", "--porcelain")
    if status.returncode != 0 or status.stdout.strip():
        problems.append(f"uncommitted changes: {status.stdout.strip() or status.stderr.strip()}")
    return problems


reward = 0.0
for part in (untracked_but_kept, ignored_and_committed):
    problems = part()
    for problem in problems:
        print(problem, file=sys.stderr)
    reward += 0 if problems else 0.5
print(reward)
