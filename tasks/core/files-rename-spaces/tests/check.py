"""Reward 1 when every name in /app/inbox has its spaces replaced by underscores and every file kept its content."""

from pathlib import Path

NUMBERS = {
    "budget_2024.xlsx": 0,
    "meeting_notes__march.txt": 1,
    "Q3_sales_report_final.pdf": 2,
    "photo_from_phone.jpg": 3,
    "readme.md": 4,
    "call_with_vendor.m4a": 5,
    "draft-v2.docx": 6,
    "_leading_space.txt": 7,
    "invoice_0042.pdf": 8,
    "to_do_list.txt": 9,
}

inbox = Path("/app/inbox")
expected = {name: f"document {number}\n" * (number + 1) for name, number in NUMBERS.items()}
found = {path.name: path.read_text() for path in inbox.iterdir() if path.is_file()} if inbox.is_dir() else {}
print(1 if found == expected else 0)
