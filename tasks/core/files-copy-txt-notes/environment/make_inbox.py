"""Fills a flat inbox folder with a few text notes, PDFs and JPEG photos."""

import random
import sys
from pathlib import Path

NOTES = {
    "groceries.txt": "milk\neggs\nrye bread\ncoffee beans\n",
    "ideas.txt": "start a reading club\nrepaint the shed in green\n",
    "meeting-2024-05-02.txt": "Budget approved.\nNext meeting on 16 May.\nAnna sends the minutes.\n",
    "phone-numbers.txt": "plumber 0612 345 678\ndentist 0203 998 112\n",
    "todo.txt": "renew passport\nbook train to Utrecht\ncall grandma\n",
}
OTHERS = ["electricity-bill.pdf", "lease-contract.pdf", "beach.jpg", "whiteboard.jpg"]

inbox = Path(sys.argv[1])
inbox.mkdir(parents=True)
rng = random.Random(77)
for name, text in NOTES.items():
    (inbox / name).write_text(text)
for name in OTHERS:
    (inbox / name).write_bytes(rng.randbytes(rng.randint(800, 4000)))
