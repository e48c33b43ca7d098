"""Writes a documentation tree whose files were last modified at noon (UTC) on days spread over 2023 and 2024."""

import os
import random
import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

root = Path(sys.argv[1])
rng = random.Random(11)
folders = ["", "guides", "guides/admin", "api", "api/v2", "release notes", "drafts"]
topics = ["setup", "install", "upgrade", "backup", "faq", "auth", "users", "billing", "limits", "errors", "webhooks"]
days = [date(2024, 2, 29), date(2024, 3, 1)] + [date(2023, 9, 1) + timedelta(days=rng.randrange(300)) for _ in range(34)]
for index, day in enumerate(days):
    folder = root / rng.choice(folders)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{rng.choice(topics)}-{index:02d}.md"
    path.write_text(f"# {path.stem}\n\nwritten for the docs tree, file {index}\n")
    noon = datetime(day.year, day.month, day.day, 12, tzinfo=timezone.utc).timestamp()
    os.utime(path, (noon, noon))
