"""Tasks in the Harbor format, suites and their splits."""

from harness_evo.taskset.suite import SPLITS, Suite, load_suite, suite_digest
from harness_evo.taskset.task import Task, load_task

__all__ = ["SPLITS", "Suite", "Task", "load_suite", "load_task", "suite_digest"]
