#!/usr/bin/env python3
"""Layering check: fails when a source file includes a header its folder must not touch.

The rules are the "must not touch" column of docs/architecture.md:
  - Qt headers (<QWidget>, <QtCore/...>, <qglobal.h>, ...) only in gui/;
  - hwloc (hwloc.h, hwloc/...), libnuma (numa.h, numaif.h) and likwid (likwid.h,
    likwid-marker.h) only in validate/ and shuffle/ (libnumatwin-shuffle);
  - shuffle/ stands alone (it is installed): no numatwin headers but its own;
  - model/ and sim/: no threads (<thread>, <mutex>, ...) and no clocks (<chrono>, <ctime>, ...);
  - sim/: no files (<fstream>); model/: <fstream> only in its io part, the files named
    *_json.* or *_io.* (e.g. topology_json.cpp, file_io.cpp);
  - model/: nlohmann_json only in its io part;
  - inside a library with concern folders (FOLDER_ORDER), no include runs back up: a file in
    folder F (under src/F/ or include/numatwin/<lib>/F/) includes only headers of F and of the
    folders listed before it.

Usage:
  check_includes.py [--root DIR] [FOLDER ...]   scan FOLDERs (default: all layered folders)
  check_includes.py --self-test                 prove the checker catches violations by running
                                                it on fixture trees made in a temporary dir
Exit status: 0 clean, 1 violations found (one line each, "file:line: ..."), 2 usage error.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

DEFAULT_FOLDERS = ["model", "sim", "shuffle", "validate", "gui", "cli", "bench", "fuzz"]
SOURCE_SUFFIXES = {".h", ".hh", ".hpp", ".hxx", ".c", ".cc", ".cpp", ".cxx", ".ipp", ".inl", ".tpp"}
INCLUDE_RE = re.compile(r'^\s*#\s*(?:include|include_next|import)\s*([<"])([^>"]+)[>"]')

# Qt: <QWidget>, <QtCore>, <QtCore/qobject.h>, <QtWidgets/QWidget>, <qglobal.h>, <qwidget.h>.
QT_RE = re.compile(r"^(Q[A-Za-z0-9_]*|Qt[A-Za-z0-9]*/.*|q[a-z0-9_]+\.h)$")
# Lower-case q*.h names that are not Qt (none known today; add here if one appears).
QT_LOWERCASE_EXCEPTIONS: set[str] = set()
HARDWARE_HEADERS = {
    "hwloc.h": "hwloc",
    "numa.h": "libnuma",
    "numaif.h": "libnuma",
    "likwid.h": "likwid",
    "likwid-marker.h": "likwid",
}
THREAD_HEADERS = {
    "thread", "mutex", "shared_mutex", "condition_variable", "future", "semaphore", "latch",
    "barrier", "stop_token", "pthread.h", "threads.h", "omp.h",
}
CLOCK_HEADERS = {"chrono", "ctime", "time.h", "sys/time.h"}
FILE_HEADERS = {"fstream"}
MODEL_IO_PATTERNS = ["*_json.*", "*_io.*"]


@dataclass(frozen=True)
class Rule:
    """Forbids headers matching `matches` in files under `folders`, unless `exempt` says so."""

    folders: frozenset[str] | None  # None: every scanned folder
    except_folders: frozenset[str]
    matches: Callable[[str], str | None]  # header -> what it is (for the message) or None
    reason: str
    exempt: Callable[[str, Path], bool] = lambda folder, path: False

    def applies(self, folder: str, path: Path) -> bool:
        if folder in self.except_folders:
            return False
        if self.folders is not None and folder not in self.folders:
            return False
        return not self.exempt(folder, path)


def is_qt(header: str) -> str | None:
    if QT_RE.match(header) and header not in QT_LOWERCASE_EXCEPTIONS:
        return "a Qt header"
    return None


def is_hardware(header: str) -> str | None:
    if header.startswith("hwloc/"):
        return "an hwloc header"
    library = HARDWARE_HEADERS.get(header)
    return f"a {library} header" if library else None


def in_set(names: set[str], what: str) -> Callable[[str], str | None]:
    return lambda header: what if header in names else None


def is_nlohmann(header: str) -> str | None:
    return "an nlohmann_json header" if header.startswith("nlohmann/") else None


def is_other_numatwin(header: str) -> str | None:
    if header.startswith("numatwin/") and not header.startswith("numatwin/shuffle/"):
        return "a numatwin header outside shuffle/"
    return None


def is_model_io(folder: str, path: Path) -> bool:
    return folder == "model" and any(fnmatch.fnmatch(path.name, p) for p in MODEL_IO_PATTERNS)


RULES = [
    Rule(None, frozenset({"gui"}), is_qt, "Qt is only for gui/"),
    Rule(None, frozenset({"validate", "shuffle"}), is_hardware,
         "hardware libraries are only for validate/ and shuffle/"),
    Rule(frozenset({"shuffle"}), frozenset(), is_other_numatwin,
         "shuffle/ is installed on its own and includes no other numatwin library"),
    Rule(frozenset({"model", "sim"}), frozenset(), in_set(THREAD_HEADERS, "a threading header"),
         "model/ and sim/ use no threads"),
    Rule(frozenset({"model", "sim"}), frozenset(), in_set(CLOCK_HEADERS, "a clock header"),
         "model/ and sim/ read no clocks (the simulation owns its own clock)"),
    Rule(frozenset({"sim"}), frozenset(), in_set(FILE_HEADERS, "a file-stream header"),
         "sim/ touches no files"),
    Rule(frozenset({"model"}), frozenset(), in_set(FILE_HEADERS, "a file-stream header"),
         "model/ reads files only in its io part (*_json.*, *_io.*)", exempt=is_model_io),
    Rule(frozenset({"model"}), frozenset(), is_nlohmann,
         "model/ uses JSON only in its io part (*_json.*, *_io.*)", exempt=is_model_io),
]


# Concern folders of each library, lowest first (docs/architecture.md, "Folders").
FOLDER_ORDER = {
    "sim": ["workload", "schedule", "plan", "engine", "uncertainty", "search", "adaptive", "published"],
    # cli/src: includes are written from src/ ("report/text_table.hpp"), see header_folder.
    "cli": ["report", "options", "io", "run", "commands"],
    "validate": ["host", "discover", "kernels", "run", "measure", "calibrate", "alloc", "suite"],
}
# Libraries whose own headers are included by their path from src/ ("F/x.hpp"), not as
# "numatwin/<lib>/F/x.hpp": the executable's folders, which install no headers.
SRC_RELATIVE_INCLUDES = {"cli"}


def concern_folder(library: str, path: Path, root: Path) -> str | None:
    """The concern folder of a file of `library` (src/F/... or include/numatwin/<lib>/F/...)."""
    parts = path.relative_to(root / library).parts
    if len(parts) >= 3 and parts[0] == "src":
        return parts[1]
    if len(parts) >= 5 and parts[:3] == ("include", "numatwin", library):
        return parts[3]
    return None


def header_folder(library: str, header: str, including: Path) -> str | None:
    """The concern folder of an included header: "numatwin/<lib>/F/x.hpp", or a relative include
    (the including file's own folder, or "../F/x.hpp")."""
    prefix = f"numatwin/{library}/"
    if header.startswith(prefix):
        rest = header[len(prefix):].split("/")
        return rest[0] if len(rest) >= 2 else None
    if header.startswith("../"):
        rest = header[3:].split("/")
        return rest[0] if len(rest) >= 2 else None
    if library in SRC_RELATIVE_INCLUDES:
        rest = header.split("/")
        if len(rest) >= 2 and rest[0] in FOLDER_ORDER.get(library, []):
            return rest[0]
    return None


def folder_violation(library: str, path: Path, root: Path, header: str) -> str | None:
    order = FOLDER_ORDER.get(library)
    if not order:
        return None
    own = concern_folder(library, path, root)
    other = header_folder(library, header, path)
    if own is None or other is None or own not in order or other not in order:
        return None
    if order.index(other) > order.index(own):
        return (f"{library}/{other} sits above {library}/{own}; inside {library}/ a folder includes only "
                f"itself and {', '.join(order[:order.index(own)]) or 'nothing below'}")
    return None


def source_files(root: Path, folder: str):
    base = root / folder
    if not base.is_dir():
        return
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if path.suffix in SOURCE_SUFFIXES:
                yield path


def check(root: Path, folders: list[str]) -> tuple[int, list[str]]:
    """Returns (files scanned, violation messages)."""
    scanned = 0
    violations = []
    for folder in folders:
        for path in source_files(root, folder):
            scanned += 1
            rules = [r for r in RULES if r.applies(folder, path)]
            if not rules and folder not in FOLDER_ORDER:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for line_number, line in enumerate(text.splitlines(), start=1):
                match = INCLUDE_RE.match(line)
                if not match:
                    continue
                opener, header = match.groups()
                header = header.strip()
                backwards = folder_violation(folder, path, root, header)
                if backwards:
                    violations.append(f"{path.relative_to(root)}:{line_number}: \"{header}\" runs back up: "
                                      f"{backwards} (docs/architecture.md)")
                for rule in rules:
                    what = rule.matches(header)
                    if what:
                        shown = f"<{header}>" if opener == "<" else f'"{header}"'
                        violations.append(f"{path.relative_to(root)}:{line_number}: {shown} is "
                                          f"{what}; {rule.reason} (docs/architecture.md)")
    return scanned, violations


def run_check(args: argparse.Namespace) -> int:
    root = Path(args.root).resolve()
    if not root.is_dir():
        print(f"check_includes: {root} is not a directory", file=sys.stderr)
        return 2
    folders = args.folders or DEFAULT_FOLDERS
    scanned, violations = check(root, folders)
    for message in violations:
        print(message)
    if violations:
        print(f"check_includes: {len(violations)} forbidden include(s) in {scanned} files under "
              f"{root} ({', '.join(folders)})")
        return 1
    print(f"check_includes: {scanned} files under {root} ({', '.join(folders)}): "
          "no forbidden includes")
    return 0


# --- self test -----------------------------------------------------------------------------
# Each case: files to write in a fresh tree, whether the checker must fail, and text that must
# appear in its output (the offending file and line, or the clean summary).
SELF_TEST_CASES = [
    ("Qt in model", {"model/src/bad.cpp": "#include <vector>\n#include <QWidget>\n"}, True,
     ["model/src/bad.cpp:2:", "<QWidget>"]),
    ("QtCore path in sim", {"sim/include/x.hpp": "#include <QtCore/QObject>\n"}, True,
     ["sim/include/x.hpp:1:"]),
    ("Qt in cli", {"cli/src/main.cpp": '#include "QString"\n'}, True, ["cli/src/main.cpp:1:"]),
    ("hwloc in gui", {"gui/src/view.cpp": "#include <hwloc.h>\n"}, True, ["gui/src/view.cpp:1:"]),
    ("hwloc subheader in model", {"model/src/a.cpp": "#include <hwloc/linux.h>\n"}, True,
     ["model/src/a.cpp:1:"]),
    ("libnuma in sim", {"sim/src/a.cpp": "#  include <numaif.h>\n"}, True, ["sim/src/a.cpp:1:"]),
    ("likwid in cli", {"cli/src/a.cpp": "#include <likwid-marker.h>\n"}, True,
     ["cli/src/a.cpp:1:"]),
    ("sim in shuffle", {"shuffle/src/a.cpp": '#include "numatwin/sim/schedule/shuffle_schedule.hpp"\n'}, True,
     ["shuffle/src/a.cpp:1:"]),
    ("thread in model", {"model/src/a.cpp": "#include <thread>\n"}, True, ["model/src/a.cpp:1:"]),
    ("chrono in sim", {"sim/src/a.cpp": "\n\n#include <chrono>\n"}, True, ["sim/src/a.cpp:3:"]),
    ("mutex in sim", {"sim/src/a.hpp": "#include <mutex>\n"}, True, ["sim/src/a.hpp:1:"]),
    ("fstream in sim", {"sim/src/a_json.cpp": "#include <fstream>\n"}, True,
     ["sim/src/a_json.cpp:1:"]),
    ("fstream in model outside io", {"model/src/routing.cpp": "#include <fstream>\n"}, True,
     ["model/src/routing.cpp:1:"]),
    ("nlohmann in model outside io", {"model/src/routing.cpp": "#include <nlohmann/json.hpp>\n"},
     True, ["model/src/routing.cpp:1:"]),
    ("sim engine includes sim search", {"sim/src/engine/simulation.cpp":
                                         '#include "numatwin/sim/search/advise.hpp"\n'}, True,
     ["sim/src/engine/simulation.cpp:1:", "runs back up"]),
    ("sim workload header includes sim plan", {"sim/include/numatwin/sim/workload/w.hpp":
                                               '#include <vector>\n#include "numatwin/sim/plan/plan.hpp"\n'}, True,
     ["sim/include/numatwin/sim/workload/w.hpp:2:"]),
    ("sim relative include back up", {"sim/src/plan/p.cpp": '#include "../adaptive/state.hpp"\n'}, True,
     ["sim/src/plan/p.cpp:1:"]),
    ("validate kernels include a run", {"validate/src/kernels/k.cpp": '#include "numatwin/validate/run/workload_run.hpp"\n'},
     True, ["validate/src/kernels/k.cpp:1:", "runs back up"]),
    ("validate private relative include back up", {"validate/src/host/h.cpp": '#include "../suite/s.hpp"\n'}, True,
     ["validate/src/host/h.cpp:1:"]),
    ("cli report includes a command", {"cli/src/report/t.cpp": '#include "commands/sim_commands.hpp"\n'}, True,
     ["cli/src/report/t.cpp:1:", "runs back up"]),
    ("cli io includes run", {"cli/src/io/r.hpp": '#include <string>\n#include "run/sim_outcome.hpp"\n'}, True,
     ["cli/src/io/r.hpp:2:"]),
    ("one bad file among good ones", {
        "model/src/topology_json.cpp": "#include <fstream>\n#include <nlohmann/json.hpp>\n",
        "gui/src/w.cpp": "#include <QWidget>\n",
        "validate/src/d.cpp": "#include <hwloc.h>\n#include <numa.h>\n#include <thread>\n",
        "cli/src/main.cpp": "#include <chrono>\n#include <thread>\n",
        "bench/b.cpp": "#include <numaif.h>\n",
    }, True, ["bench/b.cpp:1:"]),
    ("allowed includes pass", {
        "model/src/topology_json.cpp": "#include <fstream>\n#include <nlohmann/json.hpp>\n",
        "model/include/numatwin/model/topology_json.hpp": "#include <filesystem>\n",
        "model/src/file_io.cpp": "#include <fstream>\n#include <cstdio>\n",
        "model/src/routing.cpp": "#include <vector>\n#include \"numatwin/model/topology.hpp\"\n"
                                 "// #include <QWidget> is only mentioned in a comment\n",
        "sim/src/engine.cpp": "#include <queue>\n#include <random>\n",
        "sim/src/search/s.cpp": "#include \"numatwin/sim/engine/simulation.hpp\"\n"
                                "#include \"numatwin/sim/search/advise.hpp\"\n#include \"local.hpp\"\n",
        "gui/src/w.cpp": "#include <QWidget>\n#include <QtCharts/QChartView>\n",
        "validate/src/d.cpp": "#include <hwloc.h>\n#include <numa.h>\n#include <likwid.h>\n",
        "shuffle/src/r.cpp": "#include <numa.h>\n#include <thread>\n"
                             "#include \"numatwin/shuffle/runner.hpp\"\n",
        "cli/src/main.cpp": "#include <chrono>\n#include <thread>\n#include <fstream>\n",
        "cli/src/commands/c.cpp": "#include \"report/text_table.hpp\"\n#include \"run/sim_outcome.hpp\"\n",
        "cli/src/io/i.cpp": "#include \"options/workload_options.hpp\"\n#include \"io/flow_spec.hpp\"\n",
    }, False, ["no forbidden includes"]),
]


def self_test() -> int:
    failures = 0
    for name, files, must_fail, expected in SELF_TEST_CASES:
        with tempfile.TemporaryDirectory(prefix="numatwin-layering-") as tmp:
            for relative, content in files.items():
                path = Path(tmp) / relative
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(content, encoding="utf-8")
            result = subprocess.run([sys.executable, __file__, "--root", tmp],
                                    capture_output=True, text=True, check=False)
            output = result.stdout + result.stderr
            problems = []
            if must_fail and result.returncode != 1:
                problems.append(f"expected exit 1, got {result.returncode}")
            if not must_fail and result.returncode != 0:
                problems.append(f"expected exit 0, got {result.returncode}")
            problems += [f"output lacks {text!r}" for text in expected if text not in output]
            if problems:
                failures += 1
                print(f"FAIL {name}: {'; '.join(problems)}\n  output: {output.strip()}")
            else:
                print(f"ok   {name} (exit {result.returncode})")
    print(f"check_includes self-test: {len(SELF_TEST_CASES) - failures} passed, {failures} failed")
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parents[2]),
                        help="project root (default: two levels above this script)")
    parser.add_argument("--self-test", action="store_true",
                        help="run the checker on fixture trees and verify it reports violations")
    parser.add_argument("folders", nargs="*", help=f"folders to scan (default: {DEFAULT_FOLDERS})")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    return run_check(args)


if __name__ == "__main__":
    sys.exit(main())
