"""Reward: the share of the .conf files mentioning the old host that now name the new one, and 0 if any other file changed."""

import hashlib
from pathlib import Path

REWRITTEN = {
    "app.conf": "2147b55c0ed34a14",
    "services/.override.conf": "747e2717b547ca53",
    "services/api.conf": "40d44ad6cbf0d1d9",
    "services/worker/worker.conf": "e542686fd014a6f4",
}
UNCHANGED = {
    "README.txt": "35b39ac466a512a3",
    "app.conf.bak": "eebb381750923a02",
    "services/hosts.list": "15778679d675301d",
    "services/worker/mail.conf": "bf9462386ecf30a1",
}


def digest(relative: str) -> str:
    path = Path("/app/etc") / relative
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.is_file() else "missing"


intact = all(digest(relative) == expected for relative, expected in UNCHANGED.items())
rewritten = sum(digest(relative) == expected for relative, expected in REWRITTEN.items())
print(round(rewritten / len(REWRITTEN), 3) if intact else 0)
