"""Reward 1 when the release archive holds every kept project file, with its content, under project-1.2/, and nothing excluded."""

import tarfile
from pathlib import Path

KEPT = ["README.md", "setup.cfg", ".gitignore", "src/app.py", "src/util.py", "src/plugins/csv_export.py",
        "tests/test_util.py", "docs/changelog.txt", "docs/logging.md", "logs/app.log.1"]

project = Path("/app/project")
expected = {f"project-1.2/{name}": (project / name).read_bytes() for name in KEPT if (project / name).is_file()}
project_intact = len(expected) == len(KEPT) and (project / ".git/HEAD").is_file() and (project / "build.log").is_file()
try:
    with tarfile.open("/app/dist/project-1.2.tar.gz", "r:gz") as archive:
        members = archive.getmembers()
        found = {member.name.removeprefix("./"): archive.extractfile(member).read() for member in members if member.isfile()}
        inside = all(member.name.removeprefix("./").startswith("project-1.2") for member in members)
except (OSError, tarfile.TarError):
    found, inside = {}, False
print(1 if project_intact and inside and found == expected else 0)
