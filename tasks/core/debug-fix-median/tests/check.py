"""Reward 1 when the agent's tests are unchanged and both they and the verifier's extra median cases pass."""

import hashlib
import subprocess
from pathlib import Path

TESTS_SHA256 = "e0880ff1a080fb5c3ffc7155a7b30f0338581e86aa50c01ada3c60bef61bc266"

visible = Path("/app/test_stats.py")
unchanged = visible.is_file() and hashlib.sha256(visible.read_bytes()).hexdigest() == TESTS_SHA256
command = ["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", str(visible), "/tests/test_stats_more.py"]
passed = unchanged and subprocess.run(command, cwd="/app", capture_output=True, timeout=60).returncode == 0
print(1 if passed else 0)
