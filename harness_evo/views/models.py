"""`harness-evo models`: which model serves each role, the embedded models and whether they are installed,
running servers."""

import importlib.util
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from rich.console import Group
from rich.table import Table

from harness_evo.config import ROLES, ModelsConfig
from harness_evo.llm import embedded, llama, process


class Role(BaseModel):
    role: str
    model: str
    max_tokens: int
    temperature: float


class EmbeddedModel(BaseModel):
    model: str
    description: str
    installed: bool
    """Its packages are installed."""
    gguf: str | None = None
    """The assembled GGUF file (None until first use)."""


class Server(BaseModel):
    """A model server a harness-evo process started and that is alive now (its record, whatever else it holds)."""

    model_config = ConfigDict(extra="allow")

    name: str
    url: str
    pid: int
    owner: int
    """The process that started it."""


class ModelsFacts(BaseModel):
    """What `harness-evo models` shows."""

    roles: list[Role] = Field(default_factory=list)
    embedded: list[EmbeddedModel] = Field(default_factory=list)
    llama_cpp: bool = False
    """llama-cpp-python is installed."""
    embedded_server: str
    llama_server: str | None = None
    """The llama-server binary, when built."""
    servers: list[Server] = Field(default_factory=list)


def collect(models: ModelsConfig) -> ModelsFacts:
    """The roles' settings, each embedded model's install state, and the model servers alive now."""
    return ModelsFacts(
        roles=[
            Role(role=role, **models.role(role).model_dump(include={"model", "max_tokens", "temperature"}))
            for role in ROLES
        ],
        embedded=[
            EmbeddedModel(
                model=f"local/{name}",
                description=gguf.description,
                installed=bool(embedded.parts(name)),
                gguf=str(embedded.gguf_path(name)) if embedded.gguf_path(name).exists() else None,
            )
            for name, gguf in embedded.EMBEDDED.items()
        ],
        llama_cpp=importlib.util.find_spec("llama_cpp") is not None,
        embedded_server=llama.server_kind(models.embedded),
        llama_server=str(binary) if (binary := llama.llama_server_binary(models.embedded)) else None,
        servers=[Server.model_validate(record) for record in process.running_servers()],
    )


def render(facts: ModelsFacts) -> Group:
    roles = Table("role", "model", "max tokens", "temperature", title="Roles", title_justify="left")
    for row in facts.roles:
        roles.add_row(row.role, row.model, str(row.max_tokens), str(row.temperature))
    local = Table("model", "weights", "packages", "GGUF", title="Embedded models", title_justify="left")
    for row in facts.embedded:
        local.add_row(
            row.model,
            row.description,
            "installed" if row.installed else "[red]missing[/red]",
            row.gguf or "assembled on first use",
        )
    for table in (roles, local):
        for column in table.columns:
            column.overflow = "fold"
    parts: list[Any] = [roles, local]
    where = f" ({facts.llama_server})" if facts.embedded_server == "llama-server" else ""
    parts.append(f"Embedded models are served by {facts.embedded_server}{where}.")
    if not facts.llama_cpp and facts.embedded_server == "llama-cpp-python":
        parts.append(f"[red]llama-cpp-python is not installed[/red]: {embedded.INSTALL_HINT}")
    servers = Table("server", "url", "pid", "started by pid", title="Running model servers", title_justify="left")
    for server in facts.servers:
        servers.add_row(server.name, server.url, str(server.pid), str(server.owner))
    parts.append(
        servers
        if facts.servers
        else "No model server runs; each run starts the ones it needs and stops them when it ends."
    )
    return Group(*parts)
