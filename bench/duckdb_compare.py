#!/usr/bin/env python3
"""numatwin's operator kernels against DuckDB on the same generated data and thread count.

For each operator and thread count: bench/operator_compare (release build) generates the data
with numatwin's generators, writes the columns as raw little-endian int64 files, runs our kernel
(one untimed warm-up, median of 3, verified against its reference) and prints JSON. This script
then loads the same columns with numpy.fromfile into native DuckDB tables (untimed), sets
PRAGMA threads=N, runs the same query once untimed and 3 times timed (median), checks that both
gave the same result, and prints: operator, threads, ours tuples/s, DuckDB tuples/s, ratio
(ours / DuckDB, wall time), and the CPU ratio: DuckDB's process CPU seconds per query over ours
per repetition (all threads; meaningful when other processes share the CPUs, wall time is not).

  count   SELECT key, COUNT(*) FROM input GROUP BY key           (tuples = records)
  median  SELECT key, MEDIAN(value) FROM input GROUP BY key      (tuples = records)
  join    SELECT COUNT(*), SUM(r.value + s.value) FROM r JOIN s USING (key)   (tuples = |R| + |S|)
The aggregation results are fetched as numpy arrays (fetchnumpy) inside the timing; ours stay in
the hash table. Checks: COUNT and MEDIAN by the digest sum(mix(key) * (result + 1)) mod 2^64
(result = count, or twice the median); joins by match count and the sum mod 2^64.

Usage: bench/duckdb_compare.py [--build build/release] [--records 2e7] [--build-records 2e6]
       [--groups 1e6] [--keys uniform] [--threads 1,2] [--ops count,median,hash-join,radix-join]
       [--huge-pages on|off] [--json rows.json]
Creates a venv under <build>/duckdb-venv with duckdb and numpy on first use (PyPI).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MASK = (1 << 64) - 1


def ensure_venv(build):
    """Re-runs this script inside <build>/duckdb-venv (created with duckdb and numpy if missing)."""
    venv = os.path.join(build, "duckdb-venv")
    python = os.path.join(venv, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(venv):
        return
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", "duckdb", "numpy"], check=True)
    os.execv(python, [python, os.path.abspath(__file__)] + sys.argv[1:])


def digest(keys, results):
    """sum(mix(key) * (result + 1)) mod 2^64, as numatwin's table_digest (splitmix64 finaliser)."""
    import numpy as np
    x = keys.astype(np.uint64)
    with np.errstate(over="ignore"):
        x = x ^ (x >> np.uint64(30))
        x = x * np.uint64(0xBF58476D1CE4E5B9)
        x = x ^ (x >> np.uint64(27))
        x = x * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
        terms = x * (results.astype(np.uint64) + np.uint64(1))
    return int(np.sum(terms, dtype=np.uint64))


def timed(con, query, fetch, repetitions=3):
    """Median wall seconds of `repetitions` runs after a warm-up, mean process CPU seconds, result."""
    fetch(con.execute(query))  # warm-up
    seconds = []
    cpu = []
    result = None
    for _ in range(repetitions):
        c0 = time.process_time()
        t0 = time.perf_counter()
        result = fetch(con.execute(query))
        seconds.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(seconds), statistics.mean(cpu), result


def run_duckdb(op, threads, data_dir, tuples):
    import duckdb
    import numpy as np
    con = duckdb.connect()
    con.execute(f"PRAGMA threads={threads}")

    def column(name):
        return np.fromfile(os.path.join(data_dir, name + ".bin"), dtype="<i8")

    if op in ("count", "median"):
        frame = {"key": column("input_key"), "value": column("input_value")}
        con.register("input_view", frame)
        con.execute("CREATE TABLE input AS SELECT * FROM input_view")
        con.unregister("input_view")
        if op == "count":
            query = "SELECT key, COUNT(*) AS c FROM input GROUP BY key"
            seconds, cpu, res = timed(con, query, lambda r: r.fetchnumpy())
            check = {"groups": len(res["key"]), "digest": digest(res["key"], res["c"])}
        else:
            query = "SELECT key, MEDIAN(value) AS m FROM input GROUP BY key"
            seconds, cpu, res = timed(con, query, lambda r: r.fetchnumpy())
            twice = np.rint(np.asarray(res["m"], dtype=np.float64) * 2.0).astype(np.uint64)
            check = {"groups": len(res["key"]), "digest": digest(res["key"], twice)}
    else:
        for side in ("r", "s"):
            con.register(side + "_view", {"key": column(side + "_key"), "value": column(side + "_value")})
            con.execute(f"CREATE TABLE {side} AS SELECT * FROM {side}_view")
            con.unregister(side + "_view")
        query = "SELECT COUNT(*), SUM(r.value + s.value) FROM r JOIN s USING (key)"
        seconds, cpu, res = timed(con, query, lambda r: r.fetchone())
        check = {"matches": int(res[0]), "sum": int(res[1]) & MASK}
    con.close()
    return {"seconds": seconds, "tuples_per_s": tuples / seconds, "cpu_seconds": cpu, "check": check}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.path.join(HERE, "..", "build", "release"))
    p.add_argument("--records", default="2e7")
    p.add_argument("--build-records", default="2e6")
    p.add_argument("--groups", default="1e6")
    p.add_argument("--keys", default="uniform")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--ops", default="count,median,hash-join,radix-join")
    p.add_argument("--huge-pages", default="off", choices=["on", "off"],
                   help="our datasets on transparent huge pages (RunOptions::huge_pages)")
    p.add_argument("--json", help="also write all rows to this file")
    args = p.parse_args()
    build = os.path.abspath(args.build)
    ensure_venv(build)
    helper = os.path.join(build, "bench", "operator_compare")
    if not os.path.exists(helper):
        sys.exit(f"{helper} is missing: cmake --build {build} --target operator_compare")
    rows = []
    failures = 0
    with tempfile.TemporaryDirectory(prefix="numatwin-duckdb-") as tmp:
        for op in args.ops.split(","):
            data_dir = os.path.join(tmp, "join" if op in ("hash-join", "radix-join") else "aggregation")
            for threads in [int(t) for t in args.threads.split(",")]:
                cmd = [helper, "--op", op, "--records", args.records, "--build-records", args.build_records,
                       "--groups", args.groups, "--keys", args.keys, "--threads", str(threads), "--dir", data_dir, "--huge-pages", args.huge_pages]
                ours = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
                duck = run_duckdb("median" if op == "median" else "count" if op == "count" else "join",
                                  threads, data_dir, ours["tuples"])
                if op in ("count", "median"):
                    same = duck["check"]["digest"] == ours["checksum"]
                else:
                    matches = re.search(r"(\d+) matches", ours["verification"])
                    same = duck["check"]["sum"] == ours["checksum"] and matches is not None and \
                        duck["check"]["matches"] == int(matches.group(1))
                failures += 0 if same else 1
                cpu_ratio = duck["cpu_seconds"] / ours["cpu_seconds"] if ours.get("cpu_seconds", 0) > 0 else float("nan")
                rows.append({"op": op, "threads": threads, "tuples": ours["tuples"], "ours_tuples_per_s": ours["tuples_per_s"],
                             "duckdb_tuples_per_s": duck["tuples_per_s"], "ratio": ours["tuples_per_s"] / duck["tuples_per_s"],
                             "cpu_ratio": cpu_ratio, "same_result": same, "ours": ours, "duckdb": duck})
                print(f"# {op} threads={threads}: ours {ours['seconds']:.4f} s (CPU {ours.get('cpu_seconds', -1):.4f} s) "
                      f"{ours.get('phases', {})}, DuckDB {duck['seconds']:.4f} s (CPU {duck['cpu_seconds']:.4f} s), "
                      f"same result: {same}", file=sys.stderr)
    print(f"{'operator':<12} {'threads':>7} {'ours tuples/s':>15} {'DuckDB tuples/s':>16} {'ratio':>7} {'CPU ratio':>9}  result")
    for r in rows:
        print(f"{r['op']:<12} {r['threads']:>7} {r['ours_tuples_per_s']:>15.4g} {r['duckdb_tuples_per_s']:>16.4g} "
              f"{r['ratio']:>7.2f} {r['cpu_ratio']:>9.2f}  {'same' if r['same_result'] else 'DIFFERENT'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
