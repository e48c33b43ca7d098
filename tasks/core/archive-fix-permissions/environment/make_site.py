"""Writes a small web site whose files and folders have all sorts of wrong permissions."""

import random
import sys
from pathlib import Path

FILES = ["index.html", "about us.html", "css/site.css", "css/print.css", "js/app.js", "js/vendor/lib.min.js",
         "images/logo.png", "images/team photo.jpg", "cgi-bin/contact.cgi", "cgi-bin/search.py",
         "cgi-bin/lib/helpers.pl", "downloads/manual.pdf", ".htaccess"]

root = Path(sys.argv[1])
rng = random.Random(23)
for name in FILES:
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(f"content of {name}\n")
for path in sorted(root.rglob("*"), reverse=True):
    path.chmod(rng.choice([0o700, 0o777, 0o750, 0o711]) if path.is_dir() else rng.choice([0o600, 0o777, 0o640, 0o755, 0o444, 0o666]))
root.chmod(0o700)
(root / "cgi-bin" / "contact.cgi").chmod(0o644)
(root / "index.html").chmod(0o600)
