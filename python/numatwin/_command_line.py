"""Keyword arguments -> the words of a numatwin command line, checked against the command's own
options (read from the C++ command definitions, so the two cannot disagree)."""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import ExitStack
from typing import Any, Iterable

from . import _core

# Options that choose the output format: the package always asks for JSON.
_FORMAT_OPTIONS = {"json", "csv"}
# Options that name a machine: a topology document (dict) is passed through a temporary file.
_TOPOLOGY_OPTIONS = {"topology", "from", "to"}


def _option_table(path: tuple[str, ...]) -> dict[str, tuple[bool, bool, bool, bool]]:
    return {name: (positional, flag, repeatable, required)
            for name, positional, flag, repeatable, required in _core.options(list(path))}


def _scalar(command: str, name: str, value: Any) -> str:
    if isinstance(value, bool):
        raise ValueError(f"{command}: --{name} takes a value, not True/False")
    if isinstance(value, (str, int, float, os.PathLike)):
        return str(os.fspath(value)) if isinstance(value, os.PathLike) else str(value)
    raise ValueError(f"{command}: --{name} takes a string or a number, not {type(value).__name__}")


def _topology_file(stack: ExitStack, document: dict) -> str:
    handle = stack.enter_context(tempfile.NamedTemporaryFile("w", suffix=".json", prefix="numatwin-topology-"))
    json.dump(document, handle)
    handle.flush()
    return handle.name


def build_words(path: Iterable[str], kwargs: dict[str, Any], stack: ExitStack, json_flag: bool) -> list[str]:
    """The command line for `path` (e.g. ("predict",)) with `kwargs`; ValueError names the first
    keyword that is not an option of the command or whose value has the wrong type."""
    path = tuple(path)
    command = " ".join(path)
    table = _option_table(path)
    words = list(path)
    positionals: list[str] = []
    for key, value in kwargs.items():
        name = key.replace("_", "-")
        if name in _FORMAT_OPTIONS:
            raise ValueError(f"{command}: --{name} is not an option from Python (results are always the --json output)")
        if name not in table:
            known = ", ".join(sorted(n.replace("-", "_") for n in table if n not in _FORMAT_OPTIONS))
            raise ValueError(f"{command}: unknown option {key!r} (no --{name}); its options: {known}")
        positional, flag, repeatable, _required = table[name]
        if value is None:
            continue
        if flag:
            if not isinstance(value, bool):
                raise ValueError(f"{command}: --{name} is a flag: pass True or False, not {type(value).__name__}")
            if value:
                words.append(f"--{name}")
            continue
        if isinstance(value, dict) and name in _TOPOLOGY_OPTIONS:
            value = _topology_file(stack, value)
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        if len(values) > 1 and not repeatable:
            raise ValueError(f"{command}: --{name} takes one value, not {len(values)}")
        texts = [_scalar(command, name, v) for v in values]
        if positional:
            positionals.extend(texts)
        else:
            for text in texts:
                words += [f"--{name}", text]
    if json_flag and "json" in table:
        words.append("--json")
    return words + positionals
