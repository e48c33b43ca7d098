"""Failure analysis: rule-based triage, the analyzer role, and the patterns that recur across tasks."""

from harness_evo.failures.analysis import FailureAnalysis
from harness_evo.failures.digest import digest
from harness_evo.failures.queries import Evidence, pattern_evidence, patterns
from harness_evo.failures.record import TAXONOMY, FailureRecord
from harness_evo.failures.triage import Triage, triage

__all__ = [
    "TAXONOMY",
    "Evidence",
    "FailureAnalysis",
    "FailureRecord",
    "Triage",
    "digest",
    "pattern_evidence",
    "patterns",
    "triage",
]
