"""The evidence engine: a parent's pool of train rollouts reused by its children's gates (pool.py), the tasks a
candidate may be measured on (scope.py), where the next pairs go (choice.py), the sequential test (sequential.py), and
the engine that gates one candidate or races several (engine.py); world.py simulates outcomes for tests and benches."""

from harness_evo.evolve.evidence.choice import Informative, TaskChoice
from harness_evo.evolve.evidence.engine import PARENT, Engine, Halt, Interrupted, Measure, Measurement
from harness_evo.evolve.evidence.pool import Key, ParentPool, Passes
from harness_evo.evolve.evidence.scope import Candidate, Plan, TrainTask
from harness_evo.evolve.evidence.sequential import SequentialTest
from harness_evo.evolve.evidence.verdict import Choice, Decision, GateVerdict, Spend, Stop

__all__ = [
    "PARENT",
    "Candidate",
    "Choice",
    "Decision",
    "Engine",
    "GateVerdict",
    "Halt",
    "Informative",
    "Interrupted",
    "Key",
    "Measure",
    "Measurement",
    "ParentPool",
    "Passes",
    "Plan",
    "SequentialTest",
    "Spend",
    "Stop",
    "TaskChoice",
    "TrainTask",
]
