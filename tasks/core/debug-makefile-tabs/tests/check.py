"""Reward 1 when the agent's Makefile builds the right outputs from a fresh copy of the project with an extra source file."""

import shutil
import subprocess
import tempfile
from pathlib import Path

app = Path("/app")
with tempfile.TemporaryDirectory() as scratch:
    project = Path(scratch) / "project"
    project.mkdir()
    if (app / "Makefile").is_file() and (app / "src").is_dir():
        shutil.copy(app / "Makefile", project / "Makefile")
        shutil.copytree(app / "src", project / "src")
    (project / "src").mkdir(exist_ok=True)
    (project / "src" / "zz-added.txt").write_text("fig\napple\nkiwi\n")
    sources = sorted((project / "src").glob("*.txt"))
    words = sorted({line for path in sources for line in path.read_text().splitlines()})
    built = subprocess.run(["make"], cwd=project, capture_output=True, timeout=60).returncode == 0
    outputs = [project / "build" / "words.txt", project / "build" / "count.txt"]
    texts = [path.read_text() if path.is_file() else None for path in outputs]
    original_sources = len(sources) >= 4 and {"apple", "carrot", "elderberry"} <= set(words)
    print(1 if built and original_sources and texts == ["\n".join(words) + "\n", f"{len(words)}\n"] else 0)
