"""One run session, for every kind of run (eval, compare, evolve): a run folder open for one command, with its store,
task suite, models, sandbox backend and executor, and the end of the session written into the run's row.

`open_run` makes a new run folder and opens it; `session` opens one that exists (`resume`). However the block ends, the
models' servers stop; Ctrl-C marks the run stopped, an error failed, and a full disk is one line that says how to go on.
"""

import errno
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness_evo.agent.executor import Executor, ProgressCallback, reach, rollout_workers
from harness_evo.config import RunConfig
from harness_evo.errors import UserError
from harness_evo.llm import LLM
from harness_evo.sandbox import SandboxBackend, get_backend
from harness_evo.store import RunStatus, RunStore
from harness_evo.taskset import Suite, load_suite


@dataclass
class RunSession:
    """What a command works with while its run is open."""

    store: RunStore
    config: RunConfig
    suite: Suite
    llm: LLM
    backend: SandboxBackend
    executor: Executor


def new_run(kind: str, config: RunConfig, runs_dir: Path, **info: Any) -> RunStore:
    """A new run folder of `kind` under `runs_dir`, with `config` as its config.toml and these fields of its row
    (`RunInfo`); a Ray cluster that cannot be reached is refused before the folder is made."""
    reach(config.executor)
    store = RunStore.create(runs_dir, kind)
    config.save_in_run(store.folder)
    if info:
        store.update_info(**info)
    return store


@contextmanager
def session(store: RunStore, config: RunConfig, on_progress: ProgressCallback | None = None) -> Iterator[RunSession]:
    """The run of `store` open with `config`; `on_progress` hears of every rollout the executor starts, finishes or
    finds recorded."""
    store.set_status(RunStatus.RUNNING)
    try:
        suite = load_suite(config.tasks, seed=config.seed)
        with LLM(config.run_models(rollout_workers(config)), store=store) as llm:
            backend = get_backend(config.sandbox, run_id=store.id)
            yield RunSession(
                store,
                config,
                suite,
                llm,
                backend,
                Executor.from_config(store, config, suite, llm, backend, on_progress),
            )
    except KeyboardInterrupt:
        ended(store, RunStatus.STOPPED)
        raise
    except OSError as e:
        ended(store, RunStatus.FAILED)
        if e.errno == errno.ENOSPC:
            then = f"`harness-evo resume {store.id}`" if store.info.kind == "evolve" else "run the command again"
            raise UserError(
                f"no space left on the disk of {store.folder} (writing {e.filename or 'a file'}); what finished is "
                f"kept: free some space, then {then}"
            ) from e
        raise
    except BaseException:
        ended(store, RunStatus.FAILED)
        raise


def open_run(
    kind: str, config: RunConfig, runs_dir: Path, on_progress: ProgressCallback | None = None, **info: Any
) -> AbstractContextManager[RunSession]:
    """A new run of `kind` (see `new_run`), open (see `session`)."""
    return session(new_run(kind, config, runs_dir, **info), config, on_progress)


def ended(store: RunStore, status: RunStatus) -> None:
    """Record how the session ended. On a full disk nothing can be recorded: the run stays `running`, which `resume`
    continues all the same."""
    try:
        store.set_status(status, finished=time.time())
    except UserError:
        pass
