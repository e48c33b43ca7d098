"""Reward 1 when every folder under /app/site is 755, every file 644, the files directly in cgi-bin 755, and nothing is missing."""

import stat
from pathlib import Path

FILES = ["index.html", "about us.html", "css/site.css", "css/print.css", "js/app.js", "js/vendor/lib.min.js",
         "images/logo.png", "images/team photo.jpg", "cgi-bin/contact.cgi", "cgi-bin/search.py",
         "cgi-bin/lib/helpers.pl", "downloads/manual.pdf", ".htaccess"]
EXECUTABLE = {"cgi-bin/contact.cgi", "cgi-bin/search.py"}

root = Path("/app/site")
paths = [root, *root.rglob("*")] if root.is_dir() else []
files = {str(path.relative_to(root)) for path in paths if path.is_file()}


def right(path: Path) -> bool:
    mode = stat.S_IMODE(path.lstat().st_mode)
    if path.is_dir():
        return mode == 0o755
    return mode == (0o755 if str(path.relative_to(root)) in EXECUTABLE else 0o644)


print(1 if files == set(FILES) and all(right(path) for path in paths) else 0)
