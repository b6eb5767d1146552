"""Command results: the --json document as plain Python objects (a dict or a list), with
to_pandas() where the result is a table."""

from __future__ import annotations

from typing import Any


def _pandas():
    try:
        import pandas
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError("to_pandas() needs pandas (pip install pandas)") from error
    return pandas


class Result(dict):
    """A command's --json output (a dict: equal to json.loads of the binary's output)."""

    command: str = ""

    def __init__(self, command: str, document: dict[str, Any]):
        super().__init__(document)
        self.command = command


class TableResult(Result):
    """A result whose `rows_key` entry is a list of rows: to_pandas() makes a DataFrame of them,
    nested fields flattened with dots (uncertainty.rate.low, ...)."""

    rows_key: str = "runs"

    def to_pandas(self):
        return _pandas().json_normalize(self[self.rows_key])


class CompareResult(TableResult):
    rows_key = "runs"


class SweepResult(TableResult):
    rows_key = "runs"
