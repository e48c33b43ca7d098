"""Prints 1 when feature/search exists at the tip of main and is checked out, main and develop unchanged; else 0."""

import subprocess
import sys

REPO = "/app/webshop"
HISTORY = {
    "main": ["Sell t-shirts", "Add cart total", "Initial catalog"],
    "develop": ["WIP: coupons", "WIP: discounts in the cart", "Add cart total", "Initial catalog"],
}


def git(*args: str) -> str:
    result = subprocess.run(["git", "-C", REPO, *args], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {result.stderr.strip()}")
    return result.stdout.strip()


def problems() -> list[str]:
    found = []
    for branch, subjects in HISTORY.items():
        got = git("log", "--format=%s", f"refs/heads/{branch}").splitlines()
        if got != subjects:
            found.append(f"{branch} now has the history {got}, not {subjects}")
    if git("rev-parse", "refs/heads/feature/search") != git("rev-parse", "refs/heads/main"):
        found.append("feature/search does not point at the latest commit of main")
    current = git("symbolic-ref", "-q", "HEAD")
    if current != "refs/heads/feature/search":
        found.append(f"the checked-out branch is {current}, not feature/search")
    status = git("status", "--porcelain")
    if status:
        found.append(f"the working tree has changes: {status}")
    return found


try:
    issues = problems()
except (RuntimeError, OSError) as e:
    issues = [str(e)]
for issue in issues:
    print(issue, file=sys.stderr)
print(0 if issues else 1)
