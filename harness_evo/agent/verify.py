"""Run a task's verifier in the sandbox after the agent stops, and read its reward."""

from harness_evo.errors import InfraError
from harness_evo.sandbox import Sandbox
from harness_evo.taskset import Task
from harness_evo.taskset.task import REWARD_PATH, TESTS_DIR


def verify(task: Task, sandbox: Sandbox) -> tuple[float, str]:
    """(reward in [0, 1], the verifier's output). A verifier that writes no number raises InfraError."""
    sandbox.run(f"mkdir -p {TESTS_DIR} $(dirname {REWARD_PATH}) && rm -f {REWARD_PATH}", timeout_s=30)
    sandbox.copy_dir(task.tests_dir, TESTS_DIR)
    result = sandbox.run(f"bash {TESTS_DIR}/test.sh", timeout_s=task.verifier_timeout_s)
    output = f"exit code {result.exit_code}{' (timed out)' if result.timed_out else ''}\n{result.output}"
    text = sandbox.read_file(REWARD_PATH)
    if text is None:
        raise InfraError(f"the verifier of {task.id} wrote no reward to {REWARD_PATH}\n{output}")
    try:
        reward = float(text.strip().split()[0])
    except (ValueError, IndexError):
        raise InfraError(
            f"the verifier of {task.id} wrote {text.strip()[:80]!r} to {REWARD_PATH}, not a number\n{output}"
        ) from None
    return min(max(reward, 0.0), 1.0), output
