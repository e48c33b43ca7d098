"""Structured output: a pydantic model as a JSON schema for the server, parsing from text, the repair prompt."""

import json
import re
from pathlib import Path

from pydantic import BaseModel, ValidationError

from harness_evo.templating import environment

_templates = environment(Path(__file__).parent)
_FENCED = re.compile(r"```(?:json)?\s*\n(.*?)```", re.DOTALL)


class InvalidOutput(ValueError):
    """A reply that is not a valid instance of the requested output model."""


def schema(output: type[BaseModel]) -> dict:
    return output.model_json_schema()


def response_format(output: type[BaseModel], style: str) -> dict:
    """The `response_format` asking a server to constrain its reply to `output`'s schema, in the server's style.

    `json_schema` is OpenAI's (also vLLM's); `json_object` with a `schema` is llama-cpp-python's.
    """
    if style == "json_object":
        return {"type": "json_object", "schema": schema(output)}
    return {"type": "json_schema", "json_schema": {"name": output.__name__, "schema": schema(output), "strict": True}}


def parse(text: str, output: type[BaseModel]) -> BaseModel:
    """The first JSON object in `text` (the whole text, a fenced block, or the outermost braces) valid for `output`."""
    candidates = [text.strip(), *(block.strip() for block in _FENCED.findall(text))]
    if "{" in text and "}" in text:
        candidates.append(text[text.index("{") : text.rindex("}") + 1])
    errors = []
    for candidate in candidates:
        try:
            return output.model_validate_json(candidate)
        except ValidationError as e:
            errors.append((candidate, e))
        try:  # a small model writes a script's newlines into a JSON string as they are
            return output.model_validate(json.loads(candidate, strict=False))
        except (ValueError, RecursionError):  # nesting deeper than the parser's stack is no valid output either
            pass
    # a schema mismatch in well-formed JSON tells the model more than "invalid JSON" does
    well_formed = [error for candidate, error in errors if _is_json(candidate)]
    raise InvalidOutput(describe((well_formed or [error for _, error in errors])[0]))


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def describe(error: ValidationError) -> str:
    """A validation error as short lines a model can act on."""
    lines = []
    for problem in error.errors()[:5]:
        location = ".".join(str(part) for part in problem["loc"])
        lines.append(f"{location}: {problem['msg']}" if location else problem["msg"])
    return "; ".join(lines)


def repair_message(error: str, output: type[BaseModel]) -> dict:
    """The user message of the one repair round: what was wrong and the schema to follow."""
    text = _templates.get_template("repair.md.j2").render(error=error, schema=json.dumps(schema(output), indent=1))
    return {"role": "user", "content": text}
