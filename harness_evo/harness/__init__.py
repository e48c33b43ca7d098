"""The harness: a folder of named text components (prompts, tools, skills, settings)."""

from harness_evo.harness.edit import Delete, Edit, EditError, Replace, Write
from harness_evo.harness.folder import AgentSettings, Harness, Skill, Tool

__all__ = ["AgentSettings", "Delete", "Edit", "EditError", "Harness", "Replace", "Skill", "Tool", "Write"]
