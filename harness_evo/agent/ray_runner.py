"""The `ray` executor backend: every rollout is a Ray task on a cluster node that offers the `docker` resource.

This machine (the head of the run, not necessarily of the cluster) keeps the run: it puts the harness and each task
folder into Ray's object store once, keeps at most `workers` rollouts in flight, and hands what comes back to the
executor, which records it. On a node, a task folder is unpacked once per content hash into the node's cache (so its
image is built there once, then found by the same context hash), and the rollout runs the same `Attempts` as on this
machine, calling the solver's endpoint from there; it returns the trajectory and the model calls it made. A node lost
mid-rollout is an infrastructure failure of that rollout, tried once more on another node; a rollout lost twice is
recorded as one. Ctrl-C cancels the rollouts in flight (each closes its sandbox) and then removes any container of
the run left on a node.
"""

import hashlib
import io
import logging
import os
import shutil
import socket
import sys
import tarfile
import tempfile
import threading
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import harness_evo
from harness_evo.agent.attempt import Attempts
from harness_evo.agent.runners import Broken, Finished, Job, Started
from harness_evo.agent.trajectory import Trajectory
from harness_evo.config import ModelsConfig, SandboxConfig
from harness_evo.errors import ConfigError, HarnessError, UserError
from harness_evo.harness import Harness
from harness_evo.llm import LLM, scripted
from harness_evo.sandbox.images import LABEL
from harness_evo.store import LlmCall

log = logging.getLogger(__name__)

DOCKER = "docker"
"""The custom resource of a node that runs sandboxes: `ray start --resources '{"docker": N}'` runs N rollouts there."""
NODE_CACHE = Path(tempfile.gettempdir()) / "harness-evo-ray"
"""Where a node keeps the task folders shipped to it, by content hash."""
CONNECT_TIMEOUT_S = 5.0
"""How long the cluster's address may take to accept a connection before it counts as unreachable."""
ENDPOINT_VARIABLES = ("_API_KEY", "_API_BASE", "_BASE_URL")
"""Environment variables (by suffix) that the workers get from this machine: how a model endpoint is reached."""
CANCEL_WAIT_S = 30.0
"""How long cancelled rollouts get to close their sandboxes before the run's containers are removed on every node."""


@dataclass(frozen=True)
class TaskBundle:
    """A task folder as one tar archive in the object store, named by the hash of its name and content."""

    digest: str
    name: str
    archive: list = field(hash=False)
    """[the archive's ObjectRef], nested so that Ray does not fetch it for a node that has the folder already."""

    def unpack(self) -> Path:
        """The task folder in this node's cache: unpacked from the archive the first time the node needs it."""
        folder = NODE_CACHE / "tasks" / self.digest / self.name
        if folder.is_dir():
            return folder
        import ray

        folder.parents[1].mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(prefix=f"{self.digest}.", dir=folder.parents[1]))
        with tarfile.open(fileobj=io.BytesIO(ray.get(self.archive[0]))) as tar:
            tar.extractall(partial / self.name, filter="data")
        try:
            partial.rename(folder.parent)
        except OSError:  # another rollout on this node unpacked it first
            shutil.rmtree(partial, ignore_errors=True)
        return folder


def pack(folder: Path) -> bytes:
    """A folder as a tar archive that depends on its files' names, modes and contents only."""

    def plain(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = 0
        return info

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for path in sorted(folder.rglob("*")):
            tar.add(path, arcname=path.relative_to(folder).as_posix(), recursive=False, filter=plain)
    return buffer.getvalue()


@dataclass
class NodeSpec:
    """What every rollout of one executor needs on a node, besides its harness and task."""

    sandbox: SandboxConfig
    run_id: str
    agent: str
    models: ModelsConfig | None
    model: str
    """The solver's name as the rollouts record it."""
    scripts: dict[str, tuple[Any, str]]
    """Scripted models (`scripted/NAME`) of this process, by name: (script, token), adopted by the node's process."""


@dataclass
class NodeResult:
    """What a rollout on a node sends back."""

    trajectory: Trajectory | None = None
    """None when it was interrupted."""
    calls: list[LlmCall] = field(default_factory=list)
    error: UserError | None = None
    """A mistake to report as it is: a broken harness, a node without Docker or without the base image."""


class CallLog:
    """Stands in for the run store in a node's model layer: keeps the `llm_call` events for the head to record."""

    def __init__(self):
        self.calls: list[LlmCall] = []

    def emit(self, kind: str, data: dict | None = None, /, **fields: Any) -> None:
        self.calls.append(LlmCall.model_validate({**(data or {}), **fields}))


def rollout_on_node(
    spec: NodeSpec,
    harness: tuple[dict[str, str], str, dict[str, bytes]],
    task_fields: dict,
    bundle: TaskBundle,
    trial: int,
) -> NodeResult:
    """One rollout, run by a Ray worker on a node with Docker."""
    from harness_evo.sandbox.docker import DockerBackend  # on the node: its own Docker engine
    from harness_evo.taskset import Task

    for name, (script, token) in spec.scripts.items():
        scripted.adopt(name, script, token)
    calls = CallLog()
    llm = LLM(spec.models, store=calls) if spec.models is not None else None
    try:
        task = Task.model_validate({**task_fields, "folder": bundle.unpack()})
        attempts = Attempts(DockerBackend(spec.sandbox, run_id=spec.run_id), spec.agent, llm, spec.model)
        trajectory = attempts.rollout(Harness(*harness), task, trial)
    except UserError as e:
        return NodeResult(error=type(e)(f"on Ray node {socket.gethostname()}: {e}"))
    finally:
        if llm is not None:
            llm.close()
    return NodeResult(trajectory=trajectory, calls=calls.calls)


def prune_on_node(run_id: str | None) -> int:
    """Remove this node's containers of the run (every harness-evo container when None); how many there were."""
    from harness_evo.sandbox.docker import connect, prune

    return prune(connect(), **({f"{LABEL}.run": run_id} if run_id else {}))


def runtime_env(environ: dict[str, str]) -> dict[str, Any]:
    """What Ray gives every worker of this run: this machine's harness-evo package, and the model endpoints' keys and
    addresses of this machine's environment (`*_API_KEY`, `*_API_BASE`, `*_BASE_URL`), which litellm reads there."""
    endpoints = {name: value for name, value in environ.items() if name.endswith(ENDPOINT_VARIABLES)}
    return {"py_modules": [str(Path(harness_evo.__file__).parent)], "env_vars": endpoints}


_connected_to: list[str] = []
"""The address this process's Ray connection was made to."""


def connect(address: str):
    """The `ray` module, connected to the cluster at `address`, which has a node with the `docker` resource; a
    ConfigError in one line when Ray is not installed or the cluster cannot be reached."""
    try:
        import ray
    except ImportError:
        raise ConfigError("the ray executor needs Ray: pip install 'harness-evo[ray]'") from None
    if ray.is_initialized() and _connected_to == [address]:
        return ray
    ray.shutdown()  # a connection to another cluster (or none)
    where = address.removeprefix("ray://")
    if address != "auto":
        host, _, port = where.rpartition(":")
        try:
            socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S).close()
        except OSError as e:
            raise ConfigError(
                f"cannot reach the Ray cluster at {address} ({e.strerror or e}); start its head with "
                "`ray start --head` or fix --ray-address"
            ) from None
    try:
        ray.init(
            address=address,
            log_to_driver=False,
            logging_level=logging.WARNING,
            configure_logging=False,
            runtime_env=runtime_env(os.environ),
        )
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise ConfigError(
            f"cannot connect to the Ray cluster at {address}: {str(e).strip().splitlines()[0][:200]}"
        ) from None
    _connected_to[:] = [address]
    if not ray.cluster_resources().get(DOCKER):
        ray.shutdown()
        _connected_to.clear()
        raise ConfigError(
            f"no node of the Ray cluster at {address} offers the `{DOCKER}` resource; start the nodes that run "
            f"Docker with `ray start --resources '{{\"{DOCKER}\": N}}'` (N rollouts at once there)"
        )
    return ray


class RayRunner:
    """Rollouts as Ray tasks on the cluster's Docker nodes, at most `workers` in flight."""

    def __init__(
        self,
        address: str,
        sandbox: SandboxConfig,
        run_id: str,
        agent: str,
        models: ModelsConfig | None,
        model: str,
        workers: int,
    ):
        self.ray = connect(address)
        self.workers = max(1, workers)
        self.stop = threading.Event()
        self.spec = NodeSpec(sandbox, run_id, agent, models, model, self._scripts(models))
        self.remote = self.ray.remote(rollout_on_node).options(num_cpus=0, resources={DOCKER: 1}, max_retries=0)
        self._bundles: dict[Path, TaskBundle] = {}
        self._running: dict[Any, Job] = {}
        self._lock = threading.Lock()

    def run(self, jobs: list[Job], started: Started, finished: Finished) -> Broken:
        exceptions = self.ray.exceptions
        lost_node = (
            exceptions.NodeDiedError,
            exceptions.WorkerCrashedError,
            exceptions.LocalRayletDiedError,
            exceptions.ObjectLostError,
            exceptions.RaySystemError,
        )
        shipped: dict[str, Any] = {}  # harness hash -> its components, put once in the object store
        queue, losses = deque(jobs), defaultdict(list)  # job key -> why its node was lost, each time
        broken: Broken = {}
        try:
            while (queue and not self.stop.is_set()) or self._running:
                while queue and len(self._running) < self.workers and not self.stop.is_set():
                    job = queue.popleft()
                    if job.key not in losses:
                        started(job)
                    harness = job.harness
                    if harness.hash not in shipped:
                        shipped[harness.hash] = self.ray.put((harness.components, harness.source, harness.assets))
                    self._submit(shipped[harness.hash], job)
                with self._lock:
                    running = list(self._running)
                done, _ = self.ray.wait(running, num_returns=1, timeout=0.5)
                for ref in done:
                    with self._lock:
                        job = self._running.pop(ref)
                    try:
                        result = self.ray.get(ref)
                    except exceptions.TaskCancelledError:
                        continue
                    except lost_node as e:
                        losses[job.key].append(f"the Ray node running it was lost ({first_line(e)})")
                        if len(losses[job.key]) == 1:
                            queue.appendleft(job)  # the lost node no longer offers `docker`: it runs elsewhere
                            continue
                        result = NodeResult(
                            trajectory=Trajectory(
                                task_id=job.task.id,
                                trial=job.trial,
                                harness_hash=job.harness.hash,
                                model=self.spec.model,
                                exit_reason="infra_error",
                                error=losses[job.key][-1],
                            )
                        )
                    if isinstance(result.error, HarnessError):
                        broken.setdefault(job.harness.hash, result.error)  # its other jobs would fail alike
                        queue = deque(waiting for waiting in queue if waiting.harness.hash not in broken)
                        continue
                    if result.error is not None:
                        raise result.error
                    if result.trajectory is not None and not self.stop.is_set():
                        result.trajectory.retried = losses.get(job.key, [])[:1]
                        finished(job, result.trajectory, result.calls)
        except BaseException:
            self.interrupt()
            self._prune()
            raise
        if losses or self.stop.is_set():
            self._prune()  # a lost node's containers, where its Docker engine is still reachable; a cancelled one's
        return broken

    def _submit(self, shipped, job: Job) -> None:
        task = job.task
        with self._lock:
            self._running[
                self.remote.remote(
                    self.spec, shipped, task.model_dump(exclude={"folder"}), self._bundle(task.folder), job.trial
                )
            ] = job

    def _bundle(self, folder: Path) -> TaskBundle:
        if folder not in self._bundles:
            archive = pack(folder)
            digest = hashlib.sha256(folder.name.encode() + b"\0" + archive).hexdigest()[:24]
            self._bundles[folder] = TaskBundle(digest, folder.name, [self.ray.put(archive)])
        return self._bundles[folder]

    def interrupt(self) -> None:
        self.stop.set()
        with self._lock:
            running = list(self._running)
        for ref in running:
            self.ray.cancel(ref)  # not forced: the rollout's worker gets KeyboardInterrupt and closes its sandbox
        if running:
            self.ray.wait(running, num_returns=len(running), timeout=CANCEL_WAIT_S)

    def _prune(self) -> None:
        """Remove the run's containers on every live Docker node (none are in use: nothing of this runner is running);
        a node that does not answer is left with a warning."""
        try:
            prune_cluster(self.ray, self.spec.run_id)
        except self.ray.exceptions.RayError as e:
            log.warning(
                "could not remove this run's containers on every node (%s); `harness-evo sandbox prune --run %s "
                "--ray-address ADDRESS` will",
                first_line(e),
                self.spec.run_id,
            )

    @staticmethod
    def _scripts(models: ModelsConfig | None) -> dict[str, tuple[Any, str]]:
        """The registrations of the scripted solver, shipped to the nodes; a script function is shipped by value."""
        if models is None or not models.solver.model.startswith("scripted/"):
            return {}
        name = models.solver.model.removeprefix("scripted/")
        script, token = scripted.registration(name)
        module = getattr(script, "__module__", None)
        if callable(script) and module in sys.modules and module != "__main__" and not module.startswith("harness_evo"):
            import ray.cloudpickle

            ray.cloudpickle.register_pickle_by_value(sys.modules[module])
        return {name: (script, token)}


def prune_cluster(ray, run_id: str | None, timeout_s: float = 60.0) -> dict[str, int]:
    """Containers removed on each live node that offers `docker` (by node address): the run's, or all harness-evo's."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    remote = ray.remote(prune_on_node)
    nodes = [node for node in ray.nodes() if node.get("Alive") and node.get("Resources", {}).get(DOCKER)]
    refs = {
        node["NodeManagerAddress"] + f" ({node['NodeID'][:8]})": remote.options(
            num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)
        ).remote(run_id)
        for node in nodes
    }
    return dict(zip(refs, ray.get(list(refs.values()), timeout=timeout_s)))


def first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0][:200] if text else type(error).__name__
