"""What both backends do with a command's output: read it against a deadline, keep its head and tail."""

import codecs
import select
import time
from collections.abc import Callable
from typing import Protocol


class Readable(Protocol):
    def fileno(self) -> int: ...

    def read(self, size: int, /) -> bytes | None: ...


class CappedOutput:
    """Decodes output as it arrives and keeps only its first and last `limit // 2` characters."""

    def __init__(self, limit: int):
        self.half = max(limit // 2, 1)
        self.head = ""
        self.tail = ""
        self.total = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def add(self, data: bytes) -> None:
        self._take(self._decoder.decode(data))

    def _take(self, text: str) -> None:
        self.total += len(text)
        room = self.half - len(self.head)
        if room > 0:
            self.head += text[:room]
            text = text[room:]
        if text:
            self.tail = (self.tail + text)[-self.half :]

    def text(self, note: str = "") -> str:
        """The kept output, with a line saying how much was cut from its middle, then `note` (if any)."""
        self._take(self._decoder.decode(b"", final=True))
        cut = self.total - len(self.head) - len(self.tail)
        middle = f"\n[... {cut} characters of output cut ...]\n" if cut else ""
        return f"{self.head}{middle}{self.tail}{note}"


def read_until(stream: Readable, deadline: float, sink: Callable[[bytes], None]) -> bool:
    """Pass chunks of `stream` to `sink` until its end (True) or until the monotonic `deadline` (False)."""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        ready, _, _ = select.select([stream], [], [], remaining)
        if not ready:
            return False
        chunk = stream.read(65536)
        if chunk is None:
            continue
        if not chunk:
            return True
        sink(chunk)
