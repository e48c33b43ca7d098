"""The `harness-evo` command: parses arguments, calls the library, renders the result. Nothing else."""

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from harness_evo.errors import UserError

app = typer.Typer(no_args_is_help=True, pretty_exceptions_enable=False, add_completion=False,
                  help="Evolve an LLM agent's harness (prompts, tools, skills) from its own recurring failures.")
sandbox_app = typer.Typer(no_args_is_help=True, help="Sandbox images and leftover containers.")
serve_app = typer.Typer(no_args_is_help=True, help="Model servers for open-weight models.")
import_app = typer.Typer(no_args_is_help=True, help="Turn a harness of another format into a harness folder.")
app.add_typer(sandbox_app, name="sandbox")
app.add_typer(serve_app, name="serve")
app.add_typer(import_app, name="import")

console = Console()
err_console = Console(stderr=True)

RunsDir = Annotated[Path, typer.Option("--runs", help="Folder that holds the run folders.")]


def main() -> None:
    """Entry point: user errors become one line on stderr, Ctrl-C a short notice; our bugs still show a traceback."""
    try:
        app()
    except UserError as e:
        err_console.print(f"[red]error:[/red] {e}", markup=True, highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        err_console.print("interrupted; finished work is kept in the run folder (`harness-evo resume RUN` continues it)")
        sys.exit(130)
