"""Prints 1 when every file of /app/bundle.tar.gz is extracted into /app/bundle and the archive still holds them all, else 0."""

import hashlib
import sys
import tarfile
from pathlib import Path

FILES_SHA256 = {
    "index.html": "234e28412ee423e0f5261e825fe262dc4c9370c4b71c3f69423b6c63dae0243f",
    "style.css": "34caa7296f5e065db23543104422c6d0d65a2619def875abd3c5a1501870b79d",
    "app.js": "2c8b7c39e1f1b779c2e9da6f56348d5c6a89cbe1f245a5e9db510f57549d7296",
    "menu.txt": "e6569ecf2ac0dcb96b5ae6e2a54f87ee39b675a79a5adbd4ee823fd320389151",
    "README.txt": "7443a6721381bd4e9f968e12d5e963042e2634614889a2157a0d1873e4274c5d",
}


def archived() -> dict[str, str]:
    """The sha256 of each regular file in the archive, by name."""
    found = {}
    try:
        with tarfile.open("/app/bundle.tar.gz", "r:gz") as archive:
            for member in archive.getmembers():
                if member.isfile():
                    found[member.name.removeprefix("./")] = hashlib.sha256(archive.extractfile(member).read()).hexdigest()
    except (OSError, tarfile.TarError) as error:
        print(f"/app/bundle.tar.gz cannot be read: {error}", file=sys.stderr)
    return found


def main() -> int:
    if archived() != FILES_SHA256:
        print("/app/bundle.tar.gz was changed or removed", file=sys.stderr)
        return 0
    right = True
    for name, digest in FILES_SHA256.items():
        path = Path("/app/bundle") / name
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            print(f"{path} is missing or differs from the archived {name}", file=sys.stderr)
            right = False
    return 1 if right else 0


print(main())
