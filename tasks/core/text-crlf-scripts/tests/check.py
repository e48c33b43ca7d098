"""A third of the reward for each script that runs with bash and prints what it should (report.sh needs lib.sh fixed too)."""

import subprocess
from pathlib import Path

RUNS = [
    (["greet.sh", "Ada"], "hello, Ada\n"),
    (["sum.sh", "3", "4", "35"], "sum=42\n"),
    (["report.sh", "green"], "== weekly report ==\nALL SYSTEMS GREEN\n"),
]

scripts = Path("/app/scripts")
passed = 0
for (name, *args), expected in RUNS:
    if not (scripts / name).is_file() or b"\r" in (scripts / name).read_bytes():
        continue
    result = subprocess.run(["bash", str(scripts / name), *args], capture_output=True, text=True, timeout=10)
    passed += result.returncode == 0 and result.stdout == expected and result.stderr == ""
print(round(passed / len(RUNS), 3))
