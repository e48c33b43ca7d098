"""The configuration of a run: pydantic models, unknown keys are errors, saved as `config.toml` in the run folder."""

import re
import tomllib
from functools import reduce
from pathlib import Path
from typing import Annotated, Literal

import tomli_w
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from harness_evo.errors import ConfigError
from harness_evo.redaction import FROM_ENV, SECRET_PARAM

DEFAULT_MODEL = "local/qwen2.5-coder-1.5b"
SMALL_MODEL = "local/qwen2.5-coder-0.5b"


class Strict(BaseModel):
    """Base of every config model: unknown keys fail, field docstrings are the documentation."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class RoleModel(Strict):
    """How one role talks to its model."""

    model: str = DEFAULT_MODEL
    """litellm model name (`openai/gpt-4o-mini`, `vllm/Qwen/...`) or an embedded one (`local/qwen2.5-coder-1.5b`)."""
    temperature: float = Field(0.0, ge=0)
    """Sampling temperature; above 0, trials of one task differ by their seed and are reproducible."""
    max_tokens: int = Field(512, ge=1)
    """Cap on the tokens of one reply; small models otherwise ramble for minutes."""
    timeout_s: float = Field(300.0, gt=0)
    """Per-call timeout in seconds."""
    params: dict[str, object] = Field(default_factory=dict)
    """Extra keyword arguments passed to litellm as they are (api_base, top_p, ...); a secret one (api_key, ...) as
    `"env:NAME"`, read from the environment variable NAME at each call."""

    @field_validator("params")
    @classmethod
    def secrets_from_env(cls, params: dict[str, object]) -> dict[str, object]:
        for name, value in params.items():
            if SECRET_PARAM.search(name) and not (isinstance(value, str) and value.startswith(FROM_ENV)):
                raise PydanticCustomError(
                    "secret_param",
                    "{name} holds a secret, which every run would copy into the config.toml "
                    'of its folder; set it in an environment variable and write {name} = "{env}VARIABLE"',
                    {"name": name, "env": FROM_ENV},
                )
        return params


class VllmConfig(Strict):
    """Settings of a vLLM server started for a `vllm/NAME` model (or by `harness-evo serve vllm`)."""

    gpu_memory_utilization: float = Field(0.9, gt=0, le=1)
    """Share of GPU memory vLLM may take."""
    tensor_parallel_size: int = Field(1, ge=1)
    """GPUs one model is split across."""
    max_model_len: int | None = Field(None, ge=1)
    """Context length in tokens; unset takes the model's own."""
    start_timeout_s: float = Field(900.0, gt=0)
    """How long to wait for vLLM's health endpoint; loading large weights takes minutes."""


class EmbeddedConfig(Strict):
    """The server of the embedded models."""

    server: Literal["auto", "llama-server", "llama-cpp-python"] = "auto"
    """llama.cpp's own `llama-server` (built by scripts/setup.sh), llama-cpp-python's server, or auto:
    the first when it is built."""
    binary: Path | None = None
    """The `llama-server` executable; unset: the one beside this Python interpreter (where set-up puts it), else on
    PATH."""
    slots: int | None = Field(None, ge=1)
    """Conversations llama-server holds at once, each with its own evaluated prompt; unset:
    the run's rollout workers."""
    draft: str | None = None
    """An embedded model that drafts tokens for speculative decoding (`local/qwen2.5-coder-0.5b`); unset: none."""
    draft_tokens: int = Field(8, ge=1)
    """Most tokens the draft model proposes per step."""
    ngram: bool = False
    """Speculate from n-grams already in the conversation (llama-server's `ngram-mod`), no draft model needed."""


class ModelsConfig(Strict):
    """The model of each role."""

    solver: RoleModel = Field(default_factory=lambda: RoleModel(temperature=0.7))
    """The agent's own model, the one whose harness is evolved."""
    analyzer: RoleModel = Field(default_factory=RoleModel)
    """Explains failed rollouts as failure records."""
    proposer: RoleModel = Field(default_factory=lambda: RoleModel(max_tokens=1500, temperature=0.5))
    """Proposes edits to the harness against a promoted failure pattern."""
    critic: RoleModel = Field(default_factory=RoleModel)
    """Reviews proposed edits before any rollout is paid for them."""
    cache: bool = True
    """Answer an identical request from the response cache instead of calling the model again."""
    retries: int = Field(3, ge=0)
    """Retries of a call after a transient failure (rate limit, timeout, 5xx, lost connection)."""
    backoff_s: float = Field(2.0, ge=0)
    """Wait before the first retry in seconds; doubled before each next one."""
    context_tokens: int = Field(8192, ge=1)
    """Context window of one conversation on the embedded server: long enough for one agent episode."""
    threads: int | None = Field(None, ge=1)
    """Threads of the embedded llama.cpp server; unset: all cores (set fewer on a machine busy with other work)."""
    embedded: EmbeddedConfig = Field(default_factory=EmbeddedConfig)
    """Which server runs the embedded (`local/...`) models, with how many conversations at once."""
    vllm: VllmConfig = Field(default_factory=VllmConfig)
    """How `vllm/NAME` models are served when harness-evo starts vLLM itself."""

    def role(self, name: str) -> RoleModel:
        return getattr(self, name)


ROLES = tuple(name for name, field in ModelsConfig.model_fields.items() if field.annotation is RoleModel)
"""The roles that call a model: solver, analyzer, proposer, critic."""


class SandboxConfig(Strict):
    """Where and how commands of the agent run."""

    backend: Literal["docker", "local"] = "docker"
    """`docker` isolates each rollout in its own container; `local` runs on this machine (bubblewrap if present)."""
    memory_mb: int = Field(2048, ge=1)
    """Memory limit of one sandbox."""
    cpus: float = Field(1.0, gt=0)
    """CPU limit of one sandbox."""
    pids_limit: int = Field(256, ge=1)
    """Process limit of one sandbox."""
    max_output_chars: int = Field(100_000, ge=1)
    """Output of one command is cut to this many characters inside the sandbox layer."""
    lifetime_margin_s: float = Field(600.0, ge=0)
    """Seconds a container lives past its task's agent and verifier time limits; then it stops by itself,
    run killed or not."""
    base_image: str = "harness-evo/base:latest"
    """The locally built base image that task images start from."""
    image_aliases: dict[str, str] = Field(default_factory=dict)
    """Extra `FROM` names resolved to local images, on top of the built-in aliases to the base image."""


RAY_ADDRESS = r"auto|(ray://)?[A-Za-z0-9_.\-\[\]:]+:\d{1,5}"
"""What `[executor] address` accepts: `auto`, `ray://HOST:PORT` or `HOST:PORT`."""


class ExecutorConfig(Strict):
    """How rollouts are run."""

    workers: int | None = Field(None, ge=1)
    """Rollouts run in parallel; unset: for an embedded solver as many as fit its server best (3 on llama-server, 1 on
    llama-cpp-python's), else 2."""
    trials: int = Field(1, ge=1)
    """Trials per task in `eval`."""
    backend: Literal["local", "ray"] = "local"
    """`local` runs rollouts on this machine; `ray` runs each as a task on a Ray cluster node started with a `docker`
    resource (`ray start --resources '{"docker": N}'`: N rollouts at once there),
    this machine keeping the run folder."""
    address: str = "auto"
    """The Ray cluster of `backend = "ray"`: `auto` (the cluster this machine belongs to), `ray://HOST:PORT` (its Ray
    Client server) or `HOST:PORT` (its head's GCS)."""

    @field_validator("address")
    @classmethod
    def ray_address(cls, address: str) -> str:
        if not re.fullmatch(RAY_ADDRESS, address):
            raise PydanticCustomError(
                "ray_address",
                "'{address}' is no Ray address; give auto, ray://HOST:PORT or HOST:PORT",
                {"address": address},
            )
        return address


class FailuresConfig(Strict):
    """Failure analysis and aggregation."""

    promotion_support: int = Field(2, ge=1)
    """A pattern becomes an evolution target when it is seen on this many distinct train tasks."""
    min_harness_blame: float = Field(0.5, ge=0, le=1)
    """Share of a pattern's members blamed on the harness needed for promotion."""
    trace_token_budget: int = Field(2500, ge=1)
    """Hard cap on the tokens of one digested trajectory shown to a model."""
    loop_repeats: int = Field(3, ge=2)
    """The same command (or pair of commands) this many times in a row is a command loop."""
    join_similarity: float = Field(88.0, ge=0, le=100)
    """A failure joins the pattern whose signature is at least this similar (rapidfuzz token-sort ratio, 0-100)."""
    adjudicate_similarity: float = Field(55.0, ge=0, le=100)
    """Patterns at least this similar (and below `join_similarity`) are close calls the analyzer merges or keeps
    apart."""


class CurriculumConfig(Strict):
    """Which failure pattern (arm) the next iteration works on."""

    strategy: Literal["learning-progress", "fixed", "random"] = "learning-progress"
    """`learning-progress` is the bandit of DESIGN.md; `fixed` and `random` are baselines."""
    temperature: float = Field(0.15, gt=0)
    """Softmax temperature over arm values."""
    floor: float = Field(0.05, ge=0, lt=1)
    """Minimum probability of every arm, the explore arm included."""
    discount: float = Field(0.7, gt=0, le=1)
    """Weight of older learning-progress observations is multiplied by this at each new one."""
    prior_weight: float = Field(1.0, ge=0)
    """How many learning-progress observations an arm's prior (a pattern's phi) is worth in its value."""
    explore_prior: float = Field(0.5, ge=0, le=1)
    """Prior value of the explore arm, on the scale of a pattern's phi."""
    minibatch: int = Field(4, ge=1)
    """Train tasks drawn per iteration."""


class AcceptanceConfig(Strict):
    """When a child harness is accepted over its parent."""

    rule: Literal["sign-test", "strict-sum", "none"] = "sign-test"
    """`sign-test`: one-sided sign test on fixed vs broken pairs; `strict-sum`: any gain on the minibatch (GEPA);
    `none`: every edit is accepted, whatever it scores (random search, a baseline)."""
    alpha: float = Field(0.1, gt=0, lt=1)
    """Significance level of the sign test."""
    pattern_tasks: int = Field(4, ge=1)
    """Most of the pattern's train tasks the child is compared on (a sample when the pattern has more)."""
    regression_sample: int = Field(4, ge=0)
    """Tasks the parent passes that are re-run on the child to catch regressions."""
    unsolved_after: int = Field(6, ge=1)
    """A train task failed this many times in the run (by any harness) and never passed is left out of the gate while
    the pattern has other tasks: its pairs only tie, and its step-limit rollouts are the gate's slowest."""
    trials: int = Field(3, ge=1)
    """Trials per task when comparing child and parent."""
    extra_trials: int = Field(3, ge=0)
    """Trials added to every gate task when the first look is undecided with the child ahead (0: one look); the sign
    test's alpha is then split evenly between the two looks."""
    second_look_p: float = Field(0.25, gt=0, le=1)
    """The second look is taken only when the first look's p-value is at most this: 1 fixed vs 0 broken is not worth
    doubling the gate's rollouts."""
    conditioning: Literal["warn", "refuse", "off"] = "warn"
    """An edit the rule accepts whose gate rollouts show the agent reading the task less (task identifiability or
    category dependence down by more than `conditioning_margin`) and no significant gain on dev: `warn` accepts it with
    that reason in the ledger, `refuse` rejects it, `off` does not measure."""
    conditioning_margin: float = Field(0.2, gt=0, le=1)
    """Drop of task identifiability or category dependence, child vs parent on the gate's pairs, that flags an edit."""


class EvidenceConfig(Strict):
    """The evidence engine (`evolve/evidence/`): a sequential gate that pairs a child with its parent's pool of train
    rollouts, chooses tasks by what their pairs can tell, and races the candidates of one parent."""

    alpha: float = 0.1
    """Chance that a gate accepts an edit that changes nothing, however often it looks; a race splits it evenly over
    its candidates."""
    max_rollouts: int = Field(200, ge=1)
    """Rollouts of one candidate's gate; a race of n candidates has n times this, spent on the candidates still
    running. The parent's fresh rollouts come on top (at most one per key) and stay in its pool for the next gates."""
    batch: int = Field(8, ge=1)
    """Keys measured per look: the gate decides after each batch."""
    max_trials: int = Field(6, ge=1)
    """Most trials of one task in a global edit's gate."""
    target_trials: int = Field(20, ge=1)
    """Most trials of each target (and related task) in a targeted edit's gate: its evidence comes from few tasks."""
    alternatives: list[float] = [0.6, 0.7, 0.8]
    """Shares of the differing pairs a helpful child fixes that the test is tuned for: its e-value is the mean of the
    likelihood ratios of these against 1/2 (each above 1/2 and below 1)."""
    futility: float = 0.15
    """A gate stops for futility when, were the child to fix the most of the differing pairs its pairs so far make
    plausible (an upper bound exceeded with this chance), its e-value would still end below 1/alpha within the
    rollouts left."""
    futility_differing: int = Field(0, ge=0)
    """Differing pairs a gate needs before the share of them the child wins bounds its futility: with fewer, the child
    is taken to win every differing pair to come, and only a lack of differing pairs (most pairs tie) makes it futile.
    0: the share is bounded from the first pair."""
    harm_alpha: float = 0.1
    """A gate stops as harmful when its mirrored e-value (broken against fixed pairs) reaches 1/harm_alpha."""
    drop_alpha: float = 0.1
    """A race drops a candidate when another's e-value against it, on the keys both ran, reaches 1/drop_alpha."""
    regression_sample: int = Field(4, ge=0)
    """Tasks outside a targeted edit's targets that the parent passed on its guide keys, gated as protected tasks."""
    protected_trials: int = Field(3, ge=1)
    """Pairs of each protected task before a targeted edit may be accepted; a protected task the parent passed on at
    least half of them and the child on none rejects the edit."""
    prior_strength: float = Field(2.0, gt=0)
    """Weight, in rollouts, of the train split's pass rate in a task's estimated pass rate before its own rollouts."""
    unsolved_after: int = Field(3, ge=1)
    """A task the parent failed on at least this many guide keys and never passed is left out of a global edit's
    gate."""
    cost_alpha: float = Field(0.0, ge=0, lt=1)
    """0: a gate accepts on passes alone. Above 0, a gate also accepts a child as cheaper when its rollouts cost fewer
    tokens than the parent's on the same keys more often than not, by the same mixture test of cheaper against dearer
    pairs at this level (split over a race), and its pairs make no loss of pass rate above `cost_max_loss` plausible.
    An inert edit is then accepted with chance up to alpha + cost_alpha. The run's best node follows: when no node
    beats the root on passes, a node no worse on dev and cheaper there by the paired sign test."""
    cost_max_loss: float = Field(0.05, ge=0, lt=1)
    """The largest loss of pass rate (0.05: 5 pp) a cheaper child's pairs may leave plausible when it is accepted for
    its cost: a larger loss must be ruled out at `harm_alpha`'s level by an anytime-valid bound."""

    @field_validator("alpha", "harm_alpha", "drop_alpha", "futility")
    @classmethod
    def a_chance(cls, value: float) -> float:
        if not 0 < value < 1:
            raise PydanticCustomError(
                "chance",
                "{value} is no chance of an error; set a value between 0 and 1 (exclusive), e.g. 0.1",
                {"value": value},
            )
        return value

    @field_validator("alternatives")
    @classmethod
    def better_than_even(cls, shares: list[float]) -> list[float]:
        if not shares or any(not 0.5 < share < 1 for share in shares):
            raise PydanticCustomError(
                "alternatives",
                "{shares} must be one or more shares of fixed pairs between 0.5 "
                "and 1 (exclusive), e.g. [0.6, 0.7, 0.8]",
                {"shares": shares},
            )
        return shares


class SearchConfig(Strict):
    """Which harness node to expand next, and how edits to it are proposed and reviewed."""

    strategy: Literal["ucb", "greedy"] = "ucb"
    """`ucb` balances score and how often a node was expanded; `greedy` always expands the best."""
    exploration: float = Field(1.0, ge=0)
    """UCB exploration constant."""
    candidates: int = Field(2, ge=1)
    """Edits the proposer is asked for per round; at most this many face the empirical gate."""
    evidence: int = Field(3, ge=1)
    """Member traces from distinct tasks shown to the proposer per pattern."""
    revisions: int = Field(2, ge=0)
    """Rounds in which the critic may send rejected edits back to the proposer with its reasons."""
    tool_attempts: int = Field(4, ge=1)
    """Scripts the toolsmith may write for one stand-in tool until one runs the agent's own calls that missed it."""
    max_harness_chars: int = Field(24_000, ge=1)
    """Size budget of an edited harness: all components plus the rendered system prompt."""
    ngram_words: int = Field(8, ge=1)
    """An edit quoting this many consecutive words of a training task's instruction, tests or solution is rejected."""
    review: bool | None = None
    """Ask the critic model to judge generality and relevance after the rule checks pass; unset: yes, unless the critic
    is an embedded model (see `RunConfig.reviews_edits`)."""
    dev_trials: int = Field(1, ge=1)
    """Trials per dev task when an accepted node (and the root) is scored on the dev split."""
    moves: list[Literal["proposer", "stand-in", "harvest", "knob", "prune"]] = ["proposer"]
    """Moves an iteration may make: the `proposer` (a model writes an edit against the targeted pattern, after the
    stand-in step: a tool for a program the pattern's failures missed), `stand-in` (that step alone), `harvest` (solved
    episodes of passed train rollouts become examples), `knob` (settings of `harness.toml` one step up or down each:
    those that address the targeted pattern first, then every other), `prune` (the harness without one of its parts: a
    paragraph or sentence of a prompt, a tool, a skill, the examples); `move_policy` picks among those that have
    something to do. Knob and prune hand up to `candidates` edits of one node to the gate at once."""
    examples_from: list[Literal["rollouts", "solutions"]] = ["rollouts"]
    """Where a harvest takes its episodes: the node's passed train rollouts, and/or the train tasks' reference solutions
    (`solution/solve.sh` run one command per step, once per run, in the run folder's `solutions/`; not counted as
    rollouts of the budget). A harvest takes at most half of the train tasks, so that its gate has others to measure."""
    gate: Literal["evidence", "in-turn"] = "evidence"
    """How candidates are gated: `evidence`, the evidence engine (`[evidence]`): a sequential test on pairs with the
    parent's pool of train rollouts, tasks chosen by what their pairs can tell, several candidates of one parent raced;
    `in-turn`: each candidate in turn on the pattern's tasks and a regression sample, a fixed number of trials
    (`[acceptance]`), until one is accepted."""
    move_policy: Literal["bandit", "first-harvest"] = "bandit"
    """`bandit`: each move kind first once, then the one with the most accepted gain per gate rollout, plus an
    exploration bonus; `first-harvest`: harvest whenever there is something to harvest, else the first of `moves`."""
    screen: Literal["off", "on", "audit"] = "off"
    """A look before the gate, for a few model calls and no rollout: the solver's first action on `screen_tasks` of the
    parent's failed train tasks, sampled `screen_samples` times under the parent and under the child with the same
    seeds. `on`: a candidate whose first prompt changed but not one sampled action did is dropped (`screened`) without
    being gated; `audit`: it is gated all the same, and the summary tells how many of those the gate accepted. An edit
    the first prompt does not show (a later turn's template, the loop guard) always goes on to the gate."""
    screen_tasks: int = Field(4, ge=1)
    """Failed train tasks of the parent the screen samples on (the targeted pattern's first)."""
    screen_samples: int = Field(2, ge=1)
    """Seeds per task the screen samples the first action with (seed k is trial k's, so trial 0's is mostly cached)."""
    dev_sample: int | None = Field(None, ge=1)
    """Dev tasks the root and every accepted node are scored on: unset, the whole dev split; else a seeded sample of
    this many, the same for all nodes."""


class BudgetConfig(Strict):
    """When the evolution stops: whichever limit is reached first."""

    max_rollouts: int = Field(400, ge=0)
    """Total rollouts paid for (cached ones are free). It is checked before each batch of rollouts, and a batch
    started finishes, so a run may end over it by at most one step's rollouts (a minibatch, a gate's look, a node's dev
    scoring)."""
    max_dollars: dict[str, Annotated[float, Field(ge=0)]] = Field(default_factory=dict)
    """Dollar cap per role, e.g. {proposer = 2.0}; roles not named are uncapped."""
    max_wall_s: float = Field(900.0, gt=0)
    """Wall time of the run in seconds."""
    max_iterations: int = Field(20, ge=0)
    """Evolution iterations."""
    patience: int = Field(8, ge=1)
    """Stop after this many iterations without an accepted edit."""

    @field_validator("max_dollars")
    @classmethod
    def known_roles(cls, caps: dict[str, float]) -> dict[str, float]:
        """A cap on a name that is no role would leave the role meant uncapped: refuse it."""
        unknown = sorted(set(caps) - set(ROLES))
        if unknown:
            raise PydanticCustomError(
                "unknown_role",
                "{unknown} is not a role; the roles are {roles}",
                {"unknown": ", ".join(map(repr, unknown)), "roles": ", ".join(ROLES)},
            )
        return caps


class RunConfig(Strict):
    """Everything a run needs; written to the run folder so that `resume` continues with the same settings."""

    kind: Literal["eval", "evolve", "analyze", "compare"] = "eval"
    """What the run does."""
    harness: Path = Path("harnesses/bash-agent")
    """The starting harness folder."""
    tasks: Path = Path("tasks/core")
    """The task suite folder."""
    split: str = "dev"
    """Split evaluated by `eval`."""
    seed: int = Field(0, ge=0)
    """Seed of every random choice in the run."""
    agent: Literal["model", "oracle", "solution", "noop"] = "model"
    """`model` runs the harness; `oracle` runs each task's reference solution; `solution` runs it one command per step,
    as an episode to harvest worked examples from; `noop` does nothing (a baseline)."""
    models: ModelsConfig = Field(default_factory=ModelsConfig)
    """Models per role."""
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    """Sandbox backend and limits."""
    executor: ExecutorConfig = Field(default_factory=ExecutorConfig)
    """Parallelism and trials."""
    failures: FailuresConfig = Field(default_factory=FailuresConfig)
    """Failure analysis."""
    curriculum: CurriculumConfig = Field(default_factory=CurriculumConfig)
    """Curriculum bandit."""
    acceptance: AcceptanceConfig = Field(default_factory=AcceptanceConfig)
    """Acceptance gate."""
    search: SearchConfig = Field(default_factory=SearchConfig)
    """Search over harness nodes."""
    evidence: EvidenceConfig = Field(default_factory=EvidenceConfig)
    """The evidence engine, the gate of `search.gate = "evidence"`."""
    budget: BudgetConfig = Field(default_factory=BudgetConfig)
    """Stopping rules."""

    @classmethod
    def load(cls, path: Path) -> "RunConfig":
        try:
            return cls.model_validate(tomllib.loads(path.read_text()))
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise ConfigError(f"{path}: {e}") from e
        except ValidationError as e:
            raise ConfigError(f"{path}: {one_line(e)}") from e

    @model_validator(mode="after")
    def ray_can_run_it(self) -> "RunConfig":
        """The ray executor runs rollouts in Docker on other machines:
        a solver only this machine can reach fails now."""
        if self.executor.backend != "ray":
            return self
        if self.sandbox.backend != "docker":
            raise PydanticCustomError(
                "ray_sandbox",
                'executor.backend = "ray" runs rollouts in Docker on the cluster\'s nodes; '
                'set sandbox.backend = "docker"',
            )
        solver = self.models.solver.model
        if self.agent == "model" and solver.split("/", 1)[0] in ("local", "vllm"):
            raise PydanticCustomError(
                "ray_solver",
                "the solver {solver} is served on this machine only; with the ray executor "
                "serve it yourself and name it as an OpenAI-compatible model every node can reach "
                "(openai/NAME with models.solver.params.api_base = http://HOST:PORT/v1)",
                {"solver": solver},
            )
        return self

    def with_options(self, options: dict[str, object]) -> "RunConfig":
        """This configuration with each given option set: keys are dotted field paths (`sandbox.backend`), a None value
        is an option not given and leaves the field as it is; a bad value is a ConfigError naming the field."""
        data = self.model_dump()
        for path, value in options.items():
            if value is not None:
                *parents, name = path.split(".")
                reduce(dict.__getitem__, parents, data)[name] = value
        try:
            return RunConfig.model_validate(data)
        except ValidationError as e:
            raise ConfigError(one_line(e)) from None

    def run_models(self, workers: int) -> ModelsConfig:
        """The models as a run with `workers` rollouts at once calls them: llama-server's slots, when unset, are
        `workers`."""
        if self.models.embedded.slots:
            return self.models
        embedded = self.models.embedded.model_copy(update={"slots": workers})
        return self.models.model_copy(update={"embedded": embedded})

    def reviews_edits(self) -> bool:
        """`search.review`, or its default: no review when the critic is an embedded model, whose verdicts follow its
        sampling seed rather than the edit. The rule checks, which catch edits quoting or naming training tasks, still
        run."""
        if self.search.review is not None:
            return self.search.review
        return not self.models.critic.model.startswith("local/")

    def save(self, path: Path) -> None:
        path.write_text(tomli_w.dumps(self.model_dump(mode="json", exclude_none=True)))

    def save_in_run(self, folder: Path) -> None:
        """Write the configuration into a run folder as config.toml, the harness and suite paths made absolute, so that
        the run's later commands (resume, harvest, compare) find them from any folder."""
        self.model_copy(update={"harness": self.harness.resolve(), "tasks": self.tasks.resolve()}).save(
            folder / "config.toml"
        )


def one_line(error: ValidationError) -> str:
    """The first problem of a pydantic error as `location: message` (a whole-model check's message alone)."""
    first = error.errors()[0]
    location = ".".join(str(part) for part in first["loc"])
    more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"{location}: {first['msg']}{more}" if location else f"{first['msg']}{more}"


def option_help(path: str) -> str:
    """The help of the command-line option that sets the field at the dotted `path` (`executor.trials`): the field's
    docstring and its default."""
    model: type[BaseModel] = RunConfig
    value: BaseModel = RunConfig()
    *parents, name = path.split(".")
    for parent in parents:
        value = getattr(value, parent)
        model = type(value)
    default = getattr(value, name)
    text = " ".join((model.model_fields[name].description or "").split())
    return f"{text} (default: {default})" if default is not None else text
