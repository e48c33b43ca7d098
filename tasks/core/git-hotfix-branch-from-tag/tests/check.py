"""Prints 1 when hotfix/1.2.1 is one commit on top of v1.2.0 that sets VERSION to 1.2.1 and main is untouched, else 0."""

import subprocess
import sys

REPO = "/app/app"
RELEASE_1_2_0 = "f2c75ffbec16feb31f2732ed68fc57c2890627be"
MAIN_TIP = "7bf51f0b3310e8c35eff75c96008e9b5b1e2b4ae"


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", REPO, *args], capture_output=True, text=True, check=True).stdout.strip()


def problems() -> list[str]:
    found = []
    if git("rev-parse", "refs/heads/main") != MAIN_TIP:
        found.append("main was changed")
    if git("log", "-1", "--format=%P", "refs/heads/hotfix/1.2.1") != RELEASE_1_2_0:
        found.append("hotfix/1.2.1 is not one commit on top of the v1.2.0 release")
    if git("show", "refs/heads/hotfix/1.2.1:VERSION").strip() != "1.2.1":
        found.append("VERSION on hotfix/1.2.1 is not 1.2.1")
    changed = git("diff", "--name-only", RELEASE_1_2_0, "refs/heads/hotfix/1.2.1").split()
    if changed != ["VERSION"]:
        found.append(f"the hotfix commit changes {changed}, not just VERSION")
    return found


try:
    found = problems()
except subprocess.CalledProcessError as e:
    found = [f"git {' '.join(e.cmd[3:])} failed: {e.stderr.strip()}"]
for problem in found:
    print(problem, file=sys.stderr)
print(0 if found else 1)
