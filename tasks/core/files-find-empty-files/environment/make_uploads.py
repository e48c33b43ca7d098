"""Builds an upload folder where a few files are empty; some look empty but hold a newline, and one empty folder is not a file."""

import random
import sys
from pathlib import Path

EMPTY = ["avatar-17.png", "invoices/inv-0042.pdf", "invoices/2023/inv-0007.pdf", "docs/contract-draft.docx",
         "images/banner-wide.jpg"]
NEWLINE_ONLY = ["notes.txt", "docs/todo.md"]
FULL = ["avatar-03.png", "avatar-11.png", "invoices/inv-0041.pdf", "invoices/inv-0043.pdf", "invoices/2023/inv-0006.pdf",
        "invoices/2023/inv-0008.pdf", "docs/contract-final.docx", "docs/readme.md", "images/banner.jpg",
        "images/logo.svg", "images/thumbs/banner-small.jpg", "images/thumbs/logo-small.png"]

root = Path(sys.argv[1])
rng = random.Random(5)
for name in EMPTY + NEWLINE_ONLY + FULL:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if name in EMPTY:
        path.write_bytes(b"")
    elif name in NEWLINE_ONLY:
        path.write_bytes(b"\n")
    else:
        path.write_bytes(rng.randbytes(rng.randint(300, 5000)))
(root / "tmp").mkdir()
