#!/usr/bin/env python3
"""A tour of numatwin from Python (docs/python.md): the README's first example (which of two
2-socket machines runs a hash join faster), a comparison of thread placements and a sweep over
thread counts as tables and plots. Run as plain `python examples/python_tour.py --out DIR`
(CTest runs it: python.example_tour); writes DIR/compare.png and DIR/sweep.png."""

import argparse
import os

import numatwin
import numatwin.plot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=".", help="folder for the plots")
    out = parser.parse_args().out
    os.makedirs(out, exist_ok=True)

    # README, "Plan a machine": the same hash join on two machines.
    for machine in ("xeon-gold-6548y-2s", "xeon-platinum-8480-2s"):
        r = numatwin.predict(topology=machine, workload="hash-join", records=1e9, build_records=1e8)
        rate = r["uncertainty"]["input_mtuples_per_s"]
        print(f"{machine}: {r['threads']} threads, time {r['time_s']:.4g} s, "
              f"{r['input_mtuples_per_s']:.1f} M tuples/s (90 % interval {rate['p5']:.0f} to {rate['p95']:.0f}), "
              f"local access ratio {r['local_access_ratio']:.3f}")

    compared = numatwin.compare(topology="xeon-gold-6548y-2s", workload="hash-join", records=1e9, build_records=1e8)
    try:
        table = compared.to_pandas()[["placement", "time_s", "input_mtuples_per_s", "local_access_ratio"]]
        print(table.to_string(index=False))
    except ImportError:
        print("(pandas not installed: no table)")
    numatwin.plot.save(numatwin.plot.compare(compared), os.path.join(out, "compare.png"))

    swept = numatwin.sweep(topology="xeon-gold-6548y-2s", workload="partitioned-aggregation", threads="8:64:8")
    best = max(swept["runs"], key=lambda run: run["input_mtuples_per_s"])
    print(f"sweep: {len(swept['runs'])} runs; fastest {best['strategy']} {best['algorithm']} on {best['threads']} "
          f"threads, {best['input_mtuples_per_s']:.0f} M tuples/s")
    numatwin.plot.save(numatwin.plot.sweep(swept), os.path.join(out, "sweep.png"))

    try:
        numatwin.predict(topology="xeon-gold-6548y-2s", thread=4)
    except ValueError as error:
        print("a misspelt option:", str(error).split(";")[0])


if __name__ == "__main__":
    main()
