"""Which process owns a container: a label naming this host, this process and its start time, and whether it lives.

A run killed with `kill -9` cannot remove its containers; the next run finds them by this label and removes those
whose owner is gone. The start time tells a reused process id from the owner.
"""

import os
import socket
from pathlib import Path

from pydantic import BaseModel


class Owner(BaseModel):
    """A process of one host, told apart from a later process given the same id by its start time."""

    host: str
    """The host name of the machine the process runs on."""
    pid: int
    """Its process id."""
    started: str
    """Its start time in clock ticks since boot (field 22 of /proc/PID/stat), or "" where /proc has none."""

    @classmethod
    def current(cls) -> "Owner":
        return cls(host=socket.gethostname(), pid=os.getpid(), started=start_time(os.getpid()) or "")

    @classmethod
    def parse(cls, label: str) -> "Owner | None":
        """The owner a label names, or None for a label this module did not write."""
        host, _, rest = label.rpartition("@")
        pid, _, started = rest.partition(":")
        return cls(host=host, pid=int(pid), started=started) if host and pid.isdigit() else None

    def label(self) -> str:
        return f"{self.host}@{self.pid}:{self.started}"

    def gone(self) -> bool:
        """True when this process, on this host, has ended. A process of another host, or of a host without /proc
        (where its start time cannot be read), is never judged gone."""
        if self.host != socket.gethostname() or not Path("/proc/self/stat").is_file():
            return False
        return start_time(self.pid) != self.started


def start_time(pid: int) -> str | None:
    """The start time of process `pid` from /proc, or None when it does not exist (or there is no /proc)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rpartition(")")[2].split()[19]  # the fields after "(comm)" start at field 3; the start time is field 22
