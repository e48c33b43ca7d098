"""A typed row of a projected table: the base of every record the run writes and reads through the store."""

import types
from typing import Any, ClassVar, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, model_validator

SQL_TYPES = {int: int, bool: int, float: float, str: str}
"""Python type of a field -> the column type sqlite-utils makes for it; anything else is stored as JSON text."""


class Record(BaseModel):
    """A row of `table`, written as an event of kind `event`;
    a column an older run never had is read as the field's default."""

    model_config = ConfigDict(extra="ignore")

    event: ClassVar[str]
    table: ClassVar[str]

    @model_validator(mode="before")
    @classmethod
    def _defaults_for_nulls(cls, data: Any) -> Any:
        """A NULL column (never written in this row) gives the field's default."""
        return {key: value for key, value in data.items() if value is not None} if isinstance(data, dict) else data

    @classmethod
    def columns(cls) -> dict[str, type]:
        """Field -> the column type of the table made from this model."""
        return {name: column_type(field.annotation) for name, field in cls.model_fields.items()}


def column_type(annotation: Any) -> type:
    """The SQLite column type of a field's annotation (`X | None` as X, a Literal or enum as its values' type)."""
    if get_origin(annotation) in (Union, types.UnionType):
        annotation = next(arg for arg in get_args(annotation) if arg is not type(None))
    if get_origin(annotation) is Literal:
        annotation = type(get_args(annotation)[0])
    for python, sql in SQL_TYPES.items():
        if isinstance(annotation, type) and issubclass(annotation, python):
            return sql
    return str
