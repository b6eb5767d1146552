#!/usr/bin/env python3
"""A performance guard that noise cannot fool: instruction counts under valgrind's callgrind.

Runs each reference run of callgrind-baseline.json with NUMATWIN_BINARY under callgrind, reads the
instructions it executed ("Collected" on callgrind's last line) and compares them with the
baseline. A count more than 10 % above its baseline fails; the way to accept it is to update the
baseline in the same change, with a reason (--update REASON writes the counts measured now).
A count more than 10 % below is reported, not failed (update the baseline to keep the gain).

Counts depend on the compiler and its flags: the baseline names the build it was measured with
(the CI's optimised copy, -O1 -DNDEBUG, tests/optimised_numatwin.cmake), and CMake registers this
test only for that build.

usage: callgrind_guard.py NUMATWIN_BINARY BASELINE_JSON [--update REASON] [--only NAME]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

TOLERANCE = 0.10
COLLECTED = re.compile(r"==\d+== Collected : (\d+)")


def count_instructions(binary: str, arguments: list[str], work: str) -> tuple[int, float]:
    """Instructions of one run under callgrind, and the seconds it took under callgrind."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", binary,
               *[a.replace("WORK", work) for a in arguments]]
    start = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - start
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited with {result.returncode}:\n{result.stderr[-2000:]}")
    found = COLLECTED.findall(result.stderr)
    if not found:
        raise RuntimeError(f"{' '.join(command)}: no 'Collected' line from callgrind:\n{result.stderr[-2000:]}")
    return int(found[-1]), seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("baseline")
    parser.add_argument("--update", metavar="REASON", help="write the counts measured now as the baseline")
    parser.add_argument("--only", metavar="NAME", help="run only this reference run")
    args = parser.parse_args()
    try:
        with open(args.baseline) as f:
            baseline = json.load(f)
        runs = baseline["runs"]
        for i, run in enumerate(runs):
            for key, kind in (("name", str), ("setup", list), ("arguments", list)):
                if not isinstance(run.get(key), kind):
                    raise ValueError(f"/runs/{i}/{key}: expected a {kind.__name__}")
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"callgrind_guard: {args.baseline}: {e}", file=sys.stderr)
        return 2
    failed = 0
    total_seconds = 0.0
    with tempfile.TemporaryDirectory(prefix="numatwin-callgrind-") as work:
        print(f"{'reference run':28} {'baseline':>14} {'now':>14} {'change':>8}  callgrind s")
        for run in runs:
            if args.only and run["name"] != args.only:
                continue
            for step in run["setup"]:  # not counted (e.g. generating a machine file)
                subprocess.run([args.binary, *[a.replace("WORK", work) for a in step]], check=True,
                               capture_output=True)
            try:
                now, seconds = count_instructions(args.binary, run["arguments"], work)
            except RuntimeError as e:
                print(f"callgrind_guard: {run['name']}: {e}", file=sys.stderr)
                return 1
            total_seconds += seconds
            before = run.get("instructions")
            change = (now / before - 1.0) if before else float("nan")
            verdict = ""
            if before and change > TOLERANCE:
                verdict = f"  MORE THAN {TOLERANCE:.0%} ABOVE THE BASELINE"
                failed += 1
            elif before and change < -TOLERANCE:
                verdict = "  well below the baseline: update it to keep the gain"
            print(f"{run['name']:28} {before or 0:>14,} {now:>14,} {change:>+8.1%}  {seconds:8.1f}{verdict}")
            run["measured_now"] = now
    print(f"callgrind_guard: {len(runs)} reference runs in {total_seconds:.0f} s of callgrind; "
          f"{failed} above the baseline by more than {TOLERANCE:.0%}")
    if args.update:
        for run in runs:
            if "measured_now" in run:
                run["instructions"] = run.pop("measured_now")
        baseline["reason"] = args.update
        text = json.dumps(baseline, indent=2) + "\n"
        tmp = args.baseline + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, args.baseline)  # atomic
        print(f"callgrind_guard: baseline written to {args.baseline} ({args.update})")
        return 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
