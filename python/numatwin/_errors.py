"""The exceptions of the numatwin package."""


class Error(RuntimeError):
    """A command failed. The message is the numatwin binary's one-line error (for a bad input
    file: the file, the JSON pointer and what was expected)."""


class InvalidInput(Error, ValueError):
    """An option's value was refused by the command (out of range, not applicable); the message
    names the option, as the binary's does."""
