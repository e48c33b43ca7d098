"""Prints 1 when main has the lost billing commit back and kept every other commit, else 0 (reasons on stderr)."""

import hashlib
import subprocess
import sys

REPO = "/app/ledger"
REPORT_SHA256 = "1eeae3b3f13c17ff8325e33c4abca870a7781e6d104c8038be5e25c2486f5e7e"
README_SHA256 = "937500b8135de561a42324eb678e3333c45792023f33394bbf2a4ddf14bda7f1"
SUBJECTS = ["Document the entry format", "Add totals per customer", "Parse ledger entries", "Initial commit", "Add monthly billing report"]


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", REPO, *args], capture_output=True, text=True, check=True).stdout


def sha256_of(revision: str) -> str:
    blob = subprocess.run(["git", "-C", REPO, "show", revision], capture_output=True, check=True).stdout
    return hashlib.sha256(blob).hexdigest()


def main() -> int:
    try:
        branch = git("symbolic-ref", "--short", "HEAD").strip()
        subjects = git("log", "main", "--format=%s").splitlines()
        report, readme = sha256_of("main:billing/report.py"), sha256_of("main:README.md")
        status = git("status", "--porcelain")
    except subprocess.CalledProcessError as e:
        print(f"git failed: {e.stderr}", file=sys.stderr)
        return 0
    problems = []
    if branch != "main":
        problems.append(f"HEAD is on {branch!r}, not main")
    missing = [subject for subject in SUBJECTS if subject not in subjects]
    if missing:
        problems.append(f"main lacks the commits {missing}")
    if report != REPORT_SHA256:
        problems.append("billing/report.py on main is not the lost version")
    if readme != README_SHA256:
        problems.append("README.md on main lost the later commit's change")
    if status.strip():
        problems.append(f"uncommitted changes:\n{status}")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 0 if problems else 1


print(main())
