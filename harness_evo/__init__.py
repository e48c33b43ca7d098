"""harness-evo: evolve an LLM agent's harness from its own recurring failures."""

import os

# litellm reaches for the network at import unless told otherwise; set this before anything imports it.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")

__version__ = "0.1.0"
