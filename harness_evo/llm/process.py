"""Model servers we start ourselves (llama.cpp, vLLM): child processes on 127.0.0.1, never outliving us.

A server is stopped on every way out of this process: `stop()`, interpreter exit (atexit), SIGINT and
SIGTERM (handlers that signal the servers to stop, then do what was done before), and a hard kill of the parent
(the child asks the kernel for SIGKILL when its parent goes: `prctl(PR_SET_PDEATHSIG)`). The kernel sends
that signal when the *thread* that forked the child ends, so every server is forked from one long-lived
launcher thread rather than from whichever worker thread first needed it.

Each running server leaves a small JSON file in `<cache>/servers/` so that `harness-evo models` in
another process can say where it runs, and writes its log there (named by its port and the process that started it,
so that two processes never write one log). A server that stops cleanly takes its log with it; the log of one that was
killed or crashed stays for a day, to be read, and is then removed when a server starts.
"""

import atexit
import ctypes
import json
import os
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from harness_evo.llm.cache import cache_home
from harness_evo.llm.errors import ModelUnavailable

_PR_SET_PDEATHSIG = 1
_launcher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="harness-evo-server-launcher")
_lock = threading.RLock()
_running: set["ServerProcess"] = set()
_shared: dict[str, tuple["ServerProcess", int]] = {}
_starting: dict[str, threading.Lock] = {}
_previous_handlers: dict[int, Any] = {}
LOG_KEPT_S = 24 * 3600.0
"""How long the log of a server that did not stop cleanly is kept."""


def servers_dir() -> Path:
    folder = cache_home() / "servers"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ServerProcess:
    """One server child process that answers HTTP on 127.0.0.1:`port`."""

    def __init__(self, name: str, process: subprocess.Popen, port: int, log: Path):
        self.name = name
        self.process = process
        self.port = port
        self.log = log
        self._stopped = False
        self.state_file = servers_dir() / f"{process.pid}.json"

    @classmethod
    def start(
        cls, name: str, command: Callable[[int], list[str]], health: str, timeout_s: float, port: int | None = None
    ) -> "ServerProcess":
        """Start `command(port)` and wait until GET `health` answers 200;
        raises ModelUnavailable with the log's tail."""
        install_signal_handlers()
        remove_old_logs()
        port = port or free_port()
        parent = os.getpid()
        log = servers_dir() / f"{_slug(name)}-{port}-{parent}.log"
        with log.open("wb") as sink:
            process = _launcher.submit(
                subprocess.Popen,
                command(port),
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=lambda: _die_with(parent),
            ).result()
        server = cls(name, process, port, log)
        with _lock:
            _running.add(server)
        server.state_file.write_text(
            json.dumps(
                {
                    "name": name,
                    "url": server.url,
                    "pid": process.pid,
                    "owner": parent,
                    "log": str(log),
                    "started": time.time(),
                }
            )
        )
        server._wait_healthy(health, timeout_s)
        return server

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def _wait_healthy(self, health: str, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if not self.alive:
                tail = self.tail()
                self.stop()
                raise ModelUnavailable(
                    f"{self.name} exited with status {self.process.returncode} while starting; {tail}"
                )
            try:
                with urllib.request.urlopen(self.url + health, timeout=5) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.2)
        tail = self.tail()
        self.stop()
        raise ModelUnavailable(f"{self.name} did not answer {self.url}{health} within {timeout_s:.0f} s; {tail}")

    def tail(self, lines: int = 15) -> str:
        """The last lines of the server's log, for error messages."""
        try:
            text = self.log.read_text(errors="replace").strip().splitlines()[-lines:]
        except FileNotFoundError:
            return "it left no log"
        return f"last lines of its log ({self.log}):\n" + "\n".join(text) if text else "its log is empty"

    def stop(self, timeout_s: float = 15.0) -> None:
        """Stop the server and whatever it spawned (its process group); safe to call twice."""
        with _lock:
            if self._stopped:
                return
            self._stopped = True
            _running.discard(self)
        _signal_group(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            _signal_group(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.state_file.unlink(missing_ok=True)
        if self.process.returncode in (0, -signal.SIGTERM):
            self.log.unlink(missing_ok=True)


def acquire(key: str, start: Callable[[], ServerProcess]) -> ServerProcess:
    """The process-wide server for `key`, started by `start()` on first use (or again after it died)."""
    with _starting.setdefault(key, threading.Lock()):  # one start per key; other servers and signals go on
        with _lock:
            server, users = _shared.get(key, (None, 0))
        if server is None or not server.alive:
            if server is not None:
                server.stop()
            server = start()
        with _lock:
            _shared[key] = (server, users + 1)
        return server


def release(key: str) -> None:
    """One user fewer; the last one stops the server."""
    with _starting.setdefault(key, threading.Lock()), _lock:
        server, users = _shared.get(key, (None, 0))
        if server is None:
            return
        if users > 1:
            _shared[key] = (server, users - 1)
            return
        del _shared[key]
    server.stop()


def stop_all() -> None:
    with _lock:
        servers = list(_running)
        _shared.clear()
    for server in servers:
        server.stop()


def running_servers() -> list[dict[str, Any]]:
    """Servers started by any harness-evo process that are still alive (stale records are removed)."""
    alive = []
    for record_file in sorted(servers_dir().glob("*.json")):
        try:
            record = json.loads(record_file.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        if _exists(record["pid"]):
            alive.append(record)
        else:
            record_file.unlink(missing_ok=True)
    return alive


def remove_old_logs(now: float | None = None) -> None:
    """Remove the logs of servers that are gone (killed, crashed, or their process was) after LOG_KEPT_S."""
    now = time.time() if now is None else now
    live = {Path(record["log"]).name for record in running_servers()}
    for log in servers_dir().glob("*.log"):
        try:
            if log.name not in live and now - log.stat().st_mtime > LOG_KEPT_S:
                log.unlink()
        except FileNotFoundError:  # another process removed it first
            pass


def install_signal_handlers() -> None:
    """On SIGINT/SIGTERM signal our servers to stop,
    then do what the previous handler did. Only from the main thread."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGINT, signal.SIGTERM):
        if signum not in _previous_handlers:
            _previous_handlers[signum] = signal.signal(signum, _on_signal)


def _on_signal(signum: int, frame: Any) -> None:
    # no waiting here: the interrupted code may be inside Popen.wait, whose lock is not reentrant;
    # the servers get SIGTERM now and are reaped by stop() on the way out (atexit at the latest)
    for server in list(_running):  # no lock either: a thread may hold it while a server starts
        _signal_group(server.process.pid, signal.SIGTERM)
    previous = _previous_handlers[signum]
    if callable(previous):
        previous(signum, frame)
    elif previous == signal.SIG_DFL:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


def _die_with(parent: int) -> None:
    """Runs in the child before exec: ask for SIGTERM when the parent goes (and go now if it already has)."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # a busy uvicorn may sit on SIGTERM
    if os.getppid() != parent:
        os._exit(1)


def _signal_group(pid: int, signum: int) -> None:
    try:
        os.killpg(pid, signum)
    except ProcessLookupError:
        pass


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-._" else "-" for c in name)


atexit.register(stop_all)
