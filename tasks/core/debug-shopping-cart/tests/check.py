"""Half the reward per bug fixed (carts sharing lines; the discount), judged by the verifier's own tests; 0 if the tests were edited."""

import hashlib
import subprocess
from pathlib import Path

TESTS_SHA256 = "35cbe44c7789f4acd274c6edd353a02c171ac7fdbca0d8a760d1c2906d4aa7f9"


def passes(selection: str) -> bool:
    command = ["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", "/tests", "-k", selection, "/tests/test_cart_more.py"]
    return subprocess.run(command, cwd="/app", capture_output=True, timeout=60).returncode == 0


visible = Path("/app/tests/test_cart.py")
if not visible.is_file() or hashlib.sha256(visible.read_bytes()).hexdigest() != TESTS_SHA256:
    print(0)
else:
    print(0.5 * passes("not discount") + 0.5 * passes("discount"))
