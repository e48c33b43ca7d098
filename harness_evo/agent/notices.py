"""What the agent loop adds to an observation besides the command's result, when the harness turns it on: the loop
guard's count of a repeated command (`[agent] loop_guard`) and, for a program that is not installed, the installed
programs that can do its job (`[agent] missing_hint`)."""

import shlex
from collections import Counter

from pydantic import BaseModel, Field

from harness_evo.agent.actions import NOT_FOUND
from harness_evo.agent.discovery import Run
from harness_evo.harness import AgentSettings
from harness_evo.sandbox import CommandResult

INSTEAD = {
    "sqlite3": ["python3 (its sqlite3 module)"],
    "jq": ["python3 (its json module)"],
    "yq": ["python3 (its yaml module, if it imports)", "sed"],
    **dict.fromkeys(["vim", "vi", "nano", "emacs", "pico", "ed"], ["sed -i", "python3", "cat > FILE <<'EOF'"]),
    **dict.fromkeys(["less", "more", "most"], ["cat", "head", "sed -n"]),
    **dict.fromkeys(["rg", "ag", "ack"], ["grep -rn"]),
    **dict.fromkeys(["fd", "locate", "mlocate"], ["find"]),
    **dict.fromkeys(["bc", "dc", "expr"], ["python3 -c", "awk"]),
    **dict.fromkeys(["xxd", "hexdump"], ["od -c", "python3"]),
    "tree": ["find", "ls -R"],
    **dict.fromkeys(["zip", "unzip"], ["python3 (its zipfile module)", "tar"]),
    **dict.fromkeys(["curl", "wget", "http"], ["python3 (its urllib module, for a local server)"]),
    "netstat": ["ss"],
    **dict.fromkeys(["ps", "pgrep", "pkill", "killall"], ["ls /proc", "kill"]),
    "column": ["awk", "printf"],
    "dos2unix": ["sed -i 's/\\r$//'"],
    **dict.fromkeys(["node", "nodejs", "ruby", "php", "python", "pip", "pip3"], ["python3"]),
    **dict.fromkeys(["yamllint", "jsonlint"], ["python3"]),
}
"""A program agents reach for -> what may do its job,
each starting with the program it needs (looked up in the sandbox)."""
GENERAL = ["python3", "perl", "awk", "sed", "grep", "find", "sort", "tar"]
"""What is named, of those installed, for a missing program INSTEAD does not know."""
ELEVATORS = ("sudo", "doas")
"""Programs that run a command as root: for an agent that is root, the command itself does their job."""


class Notice(BaseModel):
    """The observation template's variables that the features give, empty when their setting is off."""

    repeated: int = 0
    """How many times the agent ran this command before and got this same output."""
    missing: str = ""
    """A program the output says is not installed."""
    available: list[str] = Field(default_factory=list)
    """Installed programs that can do its job."""


class Notices:
    """One episode's notices; `run` runs a command in its sandbox."""

    def __init__(self, settings: AgentSettings, run: Run):
        self.settings, self.run = settings, run
        self.seen: Counter[tuple[str, str]] = Counter()
        self.repeats = 0
        """Commands that repeated an earlier command and its output, in this episode."""
        self._installed: dict[str, bool] = {}
        self._root: bool | None = None

    def after(self, command: str, result: CommandResult) -> Notice:
        """The notice for a command's result (counting it when it repeats an earlier one)."""
        notice = Notice()
        if self.settings.loop_guard:
            key = (command.strip(), result.output)
            notice.repeated = self.seen[key]
            self.seen[key] += 1
            self.repeats += notice.repeated > 0
        if self.settings.missing_hint and (found := NOT_FOUND.search(result.output)):
            notice.missing = found.group(1)
            notice.available = self.available(found.group(1))
        return notice

    @property
    def looping(self) -> bool:
        """The loop guard ends the episode: `loop_guard_repeats` commands repeated an earlier one."""
        return self.settings.loop_guard and self.repeats >= self.settings.loop_guard_repeats

    def available(self, program: str) -> list[str]:
        """What of INSTEAD (or GENERAL) for `program` is installed in the sandbox; for `sudo`, the command alone when
        the agent is root."""
        if program in ELEVATORS:
            if self._root is None:
                self._root = self.run("id -u", self.settings.command_timeout_s).output.strip() == "0"
            return [f"the same command without {program} (you are root)"] if self._root else []
        options = INSTEAD.get(program, GENERAL)
        needed = [
            name for name in dict.fromkeys(option.split()[0] for option in options) if name not in self._installed
        ]
        if needed:
            probe = (
                "for p in "
                + " ".join(shlex.quote(name) for name in needed)
                + '; do command -v "$p" >/dev/null && echo "$p"; done'
            )
            result = self.run(probe, self.settings.command_timeout_s)
            there = set(result.output.split())
            self._installed |= {name: name in there for name in needed}
        return [option for option in options if self._installed[option.split()[0]]]
