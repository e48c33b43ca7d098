"""Prints 1 when /app/exit_code.txt holds the exit status of /app/bin/healthcheck and its inputs are unchanged, else 0."""

import hashlib
import sys
from pathlib import Path

INPUTS_SHA256 = {
    "/app/bin/healthcheck": "c3c46562162cb13408aba995c31a230e6d83decd998d88e7ad0d54c432312184",
    "/app/services.txt": "711d0acabe00e9d19b913c4e954ac8d59b1e96a19dad2408a41ff13c8d04a201",
}
EXIT_STATUS_SHA256 = "4e07408562bedb8b60ce05c1decfe3ad16b72230967de01f640b7e4729b49fce"


def sha256_of(path: str) -> str:
    file = Path(path)
    return hashlib.sha256(file.read_bytes()).hexdigest() if file.is_file() else ""


changed = [path for path, digest in INPUTS_SHA256.items() if sha256_of(path) != digest]
for path in changed:
    print(f"{path} was changed or removed", file=sys.stderr)
answer = Path("/app/exit_code.txt")
found = answer.read_text(errors="replace").strip() if answer.is_file() else ""
right = hashlib.sha256(found.encode()).hexdigest() == EXIT_STATUS_SHA256
if not right:
    print(f"/app/exit_code.txt holds {found!r}, not the exit status of the health check", file=sys.stderr)
print(1 if right and not changed else 0)
