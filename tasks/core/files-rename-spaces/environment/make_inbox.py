"""Fills the inbox with files, most of them with one or more spaces in their names."""

import sys
from pathlib import Path

NAMES = [
    "budget 2024.xlsx",
    "meeting notes  march.txt",
    "Q3 sales report final.pdf",
    "photo from phone.jpg",
    "readme.md",
    "call with vendor.m4a",
    "draft-v2.docx",
    " leading space.txt",
    "invoice_0042.pdf",
    "to do list.txt",
]

inbox = Path(sys.argv[1])
inbox.mkdir(parents=True)
for number, name in enumerate(NAMES):
    (inbox / name).write_text(f"document {number}\n" * (number + 1))
