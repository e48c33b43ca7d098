"""What can go wrong when calling a model, split by whose fault it is."""

from harness_evo.errors import InfraError, UserError


class ModelError(UserError):
    """Retrying cannot fix it: unknown model, missing API key, bad request. The message says what to do."""


class ContextTooLong(ModelError):
    """The request does not fit the model's context window."""


class ModelUnavailable(InfraError):
    """The model could not be reached after retries, or its local server would not start or died."""
