"""Questions to the analyzer role: a Jinja2 template from `prompts/` in, a structured reply out."""

from pathlib import Path

from pydantic import BaseModel

from harness_evo.llm import LLM, ContextTooLong, Reply
from harness_evo.templating import environment

ROLE = "analyzer"
TEMPLATES = environment(Path(__file__).parent / "prompts")


def ask(llm: LLM, template: str, output: type[BaseModel], **context: object) -> Reply:
    """Render `prompts/<template>` with `context` and ask the analyzer for an `output`; `Reply.error` when it gave none.

    A prompt too long for the model's context is such an error too: the caller falls back, the analysis goes on.
    """
    messages = [
        {"role": "system", "content": TEMPLATES.get_template("system.md.j2").render()},
        {"role": "user", "content": TEMPLATES.get_template(template).render(**context)},
    ]
    try:
        return llm.complete(ROLE, messages, output=output, seed=0)
    except ContextTooLong as e:
        return Reply(text="", error=str(e))
