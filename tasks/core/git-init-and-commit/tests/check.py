"""Prints 1 when /app/notes is a git repository whose newest commit, "Add my notes", holds all the note files unchanged; else 0."""

import hashlib
import subprocess
import sys
from pathlib import Path

REPO = Path("/app/notes")
MESSAGE = "Add my notes"
FILES_SHA256 = {
    "groceries.txt": "a70eaf70c3cf268eb1597c0a8d81061c01658623f1906c0c751fa66a7fa18379",
    "ideas.md": "077f75758c362b6a7c24100a3da57112ac152d470ffcf0482cb4b3d0958f412d",
    "reading-list.txt": "56ea5eae556ab84d25d4d141bb0ee95449e6878041da90628ff5907204747eab",
    "todo.md": "ace24e3ee4b942cfec007b7fb1cc52e7556aacd1c68379b8627e9dba122c4ce9",
}


def git(*args: str) -> bytes:
    result = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True)
    if result.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout


def problems() -> list[str]:
    found = []
    for name, digest in FILES_SHA256.items():
        path = REPO / name
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            found.append(f"{path} was changed or removed")
    if not (REPO / ".git").is_dir():
        return found + ["/app/notes has no .git folder: it is not a git repository of its own"]
    top = git("rev-parse", "--show-toplevel").decode().strip()
    if top != str(REPO):
        found.append(f"the top folder of the repository is {top}, not /app/notes")
    message = git("log", "-1", "--format=%B", "HEAD").decode(errors="replace").strip()
    if message != MESSAGE:
        found.append(f"the message of the newest commit is {message!r}, not {MESSAGE!r}")
    committed = sorted(git("ls-tree", "-r", "--name-only", "HEAD").decode(errors="replace").split("\n"))
    committed = [name for name in committed if name]
    if committed != sorted(FILES_SHA256):
        found.append(f"the newest commit holds {committed}, not {sorted(FILES_SHA256)}")
    else:
        for name, digest in FILES_SHA256.items():
            if hashlib.sha256(git("show", f"HEAD:{name}")).hexdigest() != digest:
                found.append(f"the committed {name} differs from the file")
    return found


try:
    issues = problems()
except (RuntimeError, OSError) as e:
    issues = [str(e)]
for issue in issues:
    print(issue, file=sys.stderr)
print(0 if issues else 1)
