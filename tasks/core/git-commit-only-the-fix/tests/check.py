"""Prints 1 when the last commit holds exactly the calc.py fix with the asked message and the other work is
still uncommitted, else 0."""

import hashlib
import subprocess
import sys
from pathlib import Path

REPO = Path("/app/calc")
PARENT = "b50e292e8516cfb35e2805cbc3d3897261e59a45"
FIXED_CALC_SHA256 = "6cdc4653a88555a259f56585f780a4ab9180bbfc5738300e3f437a8f79853b8c"
README_DRAFT = "# calc\n\nA tiny calculator library.\n\n## Usage (draft)\n\n    from calc import average\n"


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, check=True).stdout


def problems() -> list[str]:
    found = []
    if git("log", "-1", "--format=%s").strip() != "Fix division by zero":
        found.append(f"the last commit is {git('log', '-1', '--format=%s').strip()!r}")
    if git("log", "-1", "--format=%P").strip() != PARENT:
        found.append("the last commit does not sit on the previous tip")
    if git("diff", "--name-only", "HEAD~1", "HEAD").split() != ["calc.py"]:
        found.append(f"the last commit changes {git('diff', '--name-only', 'HEAD~1', 'HEAD').split()}, not only calc.py")
    committed = subprocess.run(["git", "-C", str(REPO), "show", "HEAD:calc.py"], capture_output=True, check=True).stdout
    if hashlib.sha256(committed).hexdigest() != FIXED_CALC_SHA256:
        found.append("the committed calc.py is not the fixed version")
    readme, notes = REPO / "README.md", REPO / "notes.txt"
    if not readme.is_file() or readme.read_text() != README_DRAFT or not git("status", "--porcelain", "README.md").startswith(" M"):
        found.append("the README.md draft is no longer an uncommitted change")
    if not notes.is_file() or not git("status", "--porcelain", "notes.txt").startswith("??"):
        found.append("notes.txt is no longer an untracked file")
    return found


try:
    found = problems()
except subprocess.CalledProcessError as e:
    found = [f"git {' '.join(e.cmd[3:])} failed: {e.stderr.strip() if isinstance(e.stderr, str) else e.stderr.decode()}"]
for problem in found:
    print(problem, file=sys.stderr)
print(0 if found else 1)
