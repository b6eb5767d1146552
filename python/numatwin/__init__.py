"""numatwin from Python: the numatwin binary's simulation commands, in-process.

Each function takes the command's options as keyword arguments, named like the long options
with '-' as '_' (``--build-records 1e8`` is ``build_records=1e8``; a flag is ``True``), and
returns what ``numatwin COMMAND --json`` prints, as plain Python objects. The commands are the
binary's own C++ definitions (numatwin::commands), so results and error messages are the
binary's. The GIL is released while a command runs.

    >>> import numatwin
    >>> r = numatwin.predict(topology="xeon-gold-6548y-2s", workload="hash-join",
    ...                      records=1e9, build_records=1e8)
    >>> r["time_s"]

Errors: ValueError for an unknown option or a value of the wrong type (naming the option);
numatwin.InvalidInput (a ValueError) for a value the command refuses; numatwin.Error for any
other failure, e.g. a bad topology file (file, JSON pointer, expectation).
"""

from __future__ import annotations

import json
import os
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Sequence

from . import _core
from ._command_line import build_words
from ._errors import Error, InvalidInput
from ._results import CompareResult, Result, SweepResult, TableResult

__all__ = [
    "Error", "InvalidInput", "Result", "TableResult", "CompareResult", "SweepResult",
    "predict", "compare", "sweep", "flows", "weights", "placements", "check_published",
    "load_topology", "show_topology", "generate_topology", "list_topologies", "run",
]


def _use_packaged_data() -> None:
    """An installed package (pip install .) carries the bundled machines, published studies and
    scenarios in numatwin/data; the commands find them through their environment variables
    (unless the user set them)."""
    data = Path(__file__).resolve().parent / "data"
    for variable, folder in (("NUMATWIN_TOPOLOGY_DIR", "topologies"), ("NUMATWIN_PUBLISHED_DIR", "published"),
                             ("NUMATWIN_SCENARIO_DIR", "scenarios")):
        if (data / folder).is_dir():
            os.environ.setdefault(variable, str(data / folder))


_use_packaged_data()


def _raise(status: int, message: str):
    if status == 1:
        raise ValueError(message)
    if status == 2:
        raise InvalidInput(message)
    raise Error(message)


def _text(path: Sequence[str], kwargs: dict[str, Any], json_flag: bool = True) -> str:
    with ExitStack() as stack:
        words = build_words(path, kwargs, stack, json_flag)
        status, text = _core.run(words)
    if status != 0:
        _raise(status, text)
    return text


def run(*path: str, **options: Any) -> Any:
    """Runs any command the package has (e.g. ``run("topo", "hops", topology="x")``) with --json
    where the command has it; returns the parsed JSON."""
    return json.loads(_text(path, options))


def _result(command: str, cls: type, options: dict[str, Any]):
    document = json.loads(_text(command.split(), options))
    return cls(command, document) if isinstance(document, dict) else document


def predict(**options: Any) -> Result:
    """``numatwin predict``: one workload on a machine (time, rates, utilisation, 90 % interval)."""
    return _result("predict", Result, options)


def compare(**options: Any) -> CompareResult:
    """``numatwin compare``: variants side by side; ``to_pandas()`` gives one row per variant."""
    return _result("compare", CompareResult, options)


def sweep(**options: Any) -> SweepResult:
    """``numatwin sweep``: thread counts (``threads="2:16:2"``); ``to_pandas()`` gives one row per run."""
    return _result("sweep", SweepResult, options)


def flows(**options: Any) -> Result:
    """``numatwin flows``: any set of flows (``flow=["cpus=n0:2,read=n3", ...]``)."""
    return _result("flows", Result, options)


def weights(**options: Any) -> Result:
    """``numatwin weights``: weighted-interleave weights for a workload."""
    return _result("weights", Result, options)


def placements(**options: Any) -> Result:
    """``numatwin placements``: distinct thread placements, best and worst."""
    return _result("placements", Result, options)


def check_published(**options: Any) -> Result:
    """``numatwin check published``: the model against the published studies' figures."""
    return _result("check published", Result, options)


def load_topology(topology: str | os.PathLike) -> dict:
    """A bundled machine (by name) or a topology file, as its canonical JSON document."""
    return json.loads(_text(("topo", "export"), {"topology": topology}, json_flag=False))


def show_topology(topology: str | os.PathLike | dict) -> dict:
    """``numatwin topo show --json``: summary, hop/latency matrices, measurements and the document."""
    return json.loads(_text(("topo", "show"), {"topology": topology}))


def generate_topology(family: str, **options: Any) -> dict:
    """``numatwin topo generate FAMILY``: a machine of a family, as a topology document that
    every function takes as ``topology=``."""
    return json.loads(_text(("topo", "generate"), {"family": family, **options}, json_flag=False))


def list_topologies() -> list:
    """``numatwin topo list --json``: the bundled machines."""
    return json.loads(_text(("topo", "list"), {}))
