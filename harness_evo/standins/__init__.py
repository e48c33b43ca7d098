"""Stand-in tools for programs the agent ran that are not installed: which programs a pattern's failures missed
(missing.py), a script written from the agent's own calls (toolsmith.py) and tried on them before any rollout is paid
(tryout.py), and what the proposer and the gate ask of the step (supply.py)."""

from harness_evo.standins.missing import MissingProgram, pattern_missing_programs, scriptable
from harness_evo.standins.supply import Needs, Offer, StandIns, supplied_tasks
from harness_evo.standins.toolsmith import Script, Tryout, compiles, tool_components, usage_line
from harness_evo.standins.tryout import SandboxTryout

__all__ = [
    "MissingProgram",
    "Needs",
    "Offer",
    "SandboxTryout",
    "Script",
    "StandIns",
    "Tryout",
    "compiles",
    "pattern_missing_programs",
    "scriptable",
    "supplied_tasks",
    "tool_components",
    "usage_line",
]
