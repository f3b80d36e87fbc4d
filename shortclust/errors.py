"""Exceptions that the CLI turns into one-line messages with exit status 2.

Every error a user can cause (bad config, missing file, malformed data, out-of-range
parameter) is raised as a :class:`ShortclustError` whose message names the problem and
the way out, so the CLI never shows a traceback for bad input.
"""


class ShortclustError(Exception):
    """Base class for user-facing errors: the message is shown as is, on one line."""


class ConfigError(ShortclustError):
    """The experiment configuration is malformed or names something unknown."""


class DataError(ShortclustError):
    """A dataset or input file is missing, unreadable or malformed."""


class ParameterError(ShortclustError, ValueError):
    """A model hyperparameter is outside its allowed range.

    Also a ``ValueError``, as scikit-learn's estimator contract expects from ``fit``.
    """
