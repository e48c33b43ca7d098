"""Prints 1 when /app/keys/id_deploy has mode 600 and unchanged contents, else 0."""

import hashlib
import stat
import sys
from pathlib import Path

KEY_SHA256 = "ec68f60da010cab3fd551b4fe94b4c8edf2953c0fb5cb95b7a682631c3bce25a"

key = Path("/app/keys/id_deploy")


def main() -> int:
    if key.is_symlink() or not key.is_file() or hashlib.sha256(key.read_bytes()).hexdigest() != KEY_SHA256:
        print("/app/keys/id_deploy was changed, replaced or removed", file=sys.stderr)
        return 0
    mode = stat.S_IMODE(key.lstat().st_mode)
    if mode != 0o600:
        print(f"/app/keys/id_deploy has mode {oct(mode)}, expected 0o600", file=sys.stderr)
        return 0
    return 1


print(main())
