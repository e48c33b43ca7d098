"""Stand-in tools for programs the agent ran that are not installed: the toolsmith writes a tool's script from the
agent's own calls, and the tryout runs it on those calls before any rollout is paid."""
