"""The conversations a local server holds at once, and which caller gets which."""

import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager


class Slots:
    """`count` slots of one server: a caller waits for a free one and gets the slot its thread held last when that is
    free, so each rollout worker's turns land where its conversation's prompt is already evaluated."""

    def __init__(self, count: int, routed: bool):
        self.count = count
        self.routed = routed
        """The server takes the slot of a request (llama-server's `id_slot`);
        otherwise it has one and picks it itself."""
        self._free = list(range(count))
        self._last: weakref.WeakKeyDictionary[threading.Thread, int] = (
            weakref.WeakKeyDictionary()
        )  # ended threads drop out
        self._changed = threading.Condition()

    @contextmanager
    def hold(self) -> Iterator[int]:
        """A slot for one request, held until the reply is in."""
        me = threading.current_thread()
        with self._changed:
            self._changed.wait_for(lambda: self._free)
            slot = self._last.get(me)
            if slot not in self._free:
                unclaimed = [s for s in self._free if s not in self._last.values()]
                slot = (unclaimed or self._free)[0]
            self._free.remove(slot)
            self._last[me] = slot
        try:
            yield slot
        finally:
            with self._changed:
                self._free.append(slot)
                self._changed.notify()
