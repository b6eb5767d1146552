#!/usr/bin/env python3
"""Runs `numatwin predict | compare | sweep` as a user would: outputs parse, bad specs fail cleanly.

usage: cli_sim_test.py NUMATWIN_BINARY
"""
import csv
import io
import json
import subprocess
import sys
import unittest

BINARY = sys.argv[1]


def run(*args):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=300)


class SimCommands(unittest.TestCase):
    def test_predict_json_has_every_resource_and_step(self):
        r = run("predict", "--topology", "nehalem-ex-4s", "--workload", "shuffle", "--algorithm", "ring",
                "--sync", "tight", "--threads", "32", "--bytes", "1.28e9", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        d = json.loads(r.stdout)
        self.assertEqual(d["threads"], 32)
        self.assertEqual(len(d["steps"]), 32)
        self.assertEqual(len(d["resources"]), 4 + 12)  # 4 controllers, 12 directed links
        self.assertAlmostEqual(d["bytes_moved"], 1.28e9, delta=1.0)
        self.assertAlmostEqual(d["bandwidth_gbps"], 1.28e9 / d["time_s"] / 1e9, places=6)

    def test_compare_lists_every_variant(self):
        r = run("compare", "--topology", "nehalem-ex-4s", "--bytes", "1.28e9", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        runs = json.loads(r.stdout)["runs"]
        variants = {(x["workload"], x["algorithm"], x["sync"]) for x in runs}
        self.assertIn(("shuffle", "naive", "tight"), variants)
        self.assertIn(("shuffle", "ring", "loose"), variants)
        self.assertIn(("shuffle", "random", "tight"), variants)
        self.assertIn(("migration", "ring", "tight"), variants)
        self.assertIn(("migration-copy", "ring", "loose"), variants)
        by = {(x["workload"], x["algorithm"], x["sync"]): x for x in runs}
        self.assertGreater(by[("shuffle", "ring", "tight")]["bandwidth_gbps"],
                           by[("shuffle", "naive", "tight")]["bandwidth_gbps"])

    def test_predict_phases_split_the_thread_seconds(self):
        args = ["predict", "--topology", "nehalem-ex-4s", "--workload", "partitioned-aggregation", "--threads", "32",
                "--strategy", "migration-copy", "--groups", "32e5", "--records", "1e7", "--phases"]
        r = run(*args)
        self.assertEqual(r.returncode, 0, r.stderr)
        for phase in ("read input", "update table", "move state", "migrate", "total"):
            self.assertIn(phase, r.stdout)
        r = run(*args, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        d = json.loads(r.stdout)
        phases = {p["phase"]: p for p in d["phases"]}
        self.assertAlmostEqual(sum(p["thread_s"] for p in d["phases"]), 32 * d["time_s"], delta=1e-9 * 32 * d["time_s"])
        self.assertAlmostEqual(sum(p["share"] for p in d["phases"]), 1.0, places=9)
        self.assertAlmostEqual(sum(p["wall_s"] for p in d["phases"]), d["time_s"], delta=1e-9 * d["time_s"])
        self.assertGreater(phases["move state"]["bytes"], 0.0)
        r = run("compare", "--topology", "nehalem-ex-4s", "--workload", "partitioned-aggregation", "--threads", "32",
                "--records", "1e7", "--phases")
        self.assertEqual(r.returncode, 0, r.stderr)
        table = r.stdout[r.stdout.index("variant (share of thread-seconds, %)"):].splitlines()
        self.assertIn("move state", table[0])
        self.assertEqual(len(table), 1 + 6)  # a row per strategy and order
        self.assertTrue(any(line.startswith("partitioned-aggregation migration-copy ring tight") for line in table))

    def test_sweep_csv_has_a_row_per_thread_count_and_variant(self):
        r = run("sweep", "--topology", "skylake-4114-2s", "--threads", "2:6:2", "--bytes", "1e8", "--csv")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        self.assertEqual(sorted({int(x["threads"]) for x in rows}), [2, 4, 6])
        self.assertEqual(len(rows) % 3, 0)
        for x in rows:
            self.assertGreater(float(x["bandwidth_gbps"]), 0.0)

    def test_sweep_partitioned_aggregation_over_groups(self):
        r = run("sweep", "--topology", "nehalem-ex-4s", "--workload", "partitioned-aggregation", "--threads", "8",
                "--groups-per-partition", "10:1000:10", "--records", "1e6", "--csv")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        self.assertEqual(sorted({float(x["groups_per_partition"]) for x in rows}), [10.0, 100.0, 1000.0])
        self.assertEqual({x["strategy"] for x in rows}, {"shuffle", "migration", "migration-copy"})
        r = run("sweep", "--topology", "nehalem-ex-4s", "--workload", "partitioned-aggregation", "--threads", "8",
                "--groups-per-partition", "10:1")
        self.assertEqual(r.returncode, 1)
        self.assertIn("FIRST:LAST:FACTOR", r.stderr)

    def test_advise_ranks_against_the_os_default_and_prints_a_plan(self):
        r = run("advise", "--topology", "xeon-e7-4880v2-4s", "--workload", "count", "--records", "1e6", "--groups", "1e8",
                "--top", "3", "--apply-plan", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        d = json.loads(r.stdout)
        self.assertEqual(len(d["recommendations"]), 3)
        self.assertLessEqual(d["recommendations"][0]["time_s"], d["default"]["time_s"])
        self.assertGreaterEqual(d["recommendations"][0]["speedup_vs_default"], 1.0)
        self.assertTrue(any("taskset" in line or "numactl" in line for line in d["apply_plan"]))
        self.assertIn("not predicted", d["not_predicted"])
        r = run("advise", "--topology", "xeon-e7-4880v2-4s", "--workload", "sorting")
        self.assertEqual(r.returncode, 1)
        self.assertIn("unknown workload", r.stderr)
        r = run("advise", "--topology", "xeon-e7-4880v2-4s", "--workload", "count", "--threads", "999")
        self.assertEqual(r.returncode, 1)
        self.assertIn("exceeds", r.stderr)

    def test_bad_specs_are_one_line_errors(self):
        cases = [
            (["--threads", "65"], "exceeds the 64 hardware threads"),
            (["--bytes", "0"], "--bytes must be > 0"),
            (["--algorithm", "bubble"], "unknown algorithm \"bubble\""),
            (["--placement", "0,1,999", "--threads", "3"], "CPU 999 does not exist"),
            (["--sync", "sometimes"], "unknown sync mode"),
        ]
        for extra, message in cases:
            r = run("predict", "--topology", "nehalem-ex-4s", *extra)
            self.assertEqual(r.returncode, 1, (extra, r.stderr))
            self.assertIn(message, r.stderr, extra)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        r = run("sweep", "--topology", "nehalem-ex-4s", "--threads", "4:2")
        self.assertEqual(r.returncode, 1)
        self.assertIn("--threads", r.stderr)

    def test_operators_accept_policies_and_report_placement(self):
        r = run("predict", "--topology", "xeon-e7-4880v2-4s", "--workload", "hash-join", "--memory-policy", "interleave",
                "--records", "1e7", "--build-records", "1e6", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        d = json.loads(r.stdout)
        self.assertEqual(d["memory_policy"], "interleave")
        self.assertAlmostEqual(d["local_access_ratio"], 0.25, places=9)
        self.assertEqual({x["name"] for x in d["datasets"]}, {"R", "S", "hash table"})
        for dataset in d["datasets"]:
            self.assertEqual(sorted(dataset["nodes"]), ["s0", "s1", "s2", "s3"])

    def test_compare_policies_puts_memory_policies_side_by_side(self):
        r = run("compare", "--topology", "xeon-e7-4880v2-4s", "--workload", "count", "--policies", "--records", "1e7",
                "--groups", "1e8", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        runs = {x["memory_policy"]: x for x in json.loads(r.stdout)["runs"]}
        self.assertEqual(set(runs), {"first-touch", "first-touch:loader", "localalloc", "interleave", "preferred:s0"})
        self.assertAlmostEqual(runs["interleave"]["local_access_ratio"], 0.25, places=9)
        self.assertGreater(runs["first-touch"]["local_access_ratio"], runs["first-touch:loader"]["local_access_ratio"])

    def test_unpinned_threads_report_the_spread_over_seeds(self):
        r = run("predict", "--topology", "xeon-e7-4880v2-4s", "--workload", "count", "--placement", "none", "--records", "1e6",
                "--seeds", "3", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(json.loads(r.stdout)["time_s_over_seeds"]), 3)

    def test_placements_counts_distinct_placements(self):
        r = run("placements", "--topology", "sandybridge-e5-2630-2s", "--threads", "12", "--workload", "count",
                "--records", "1e6", "--top", "2", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        d = json.loads(r.stdout)
        self.assertTrue(d["exhaustive"])
        self.assertEqual(d["automorphisms"], 2)
        self.assertEqual(len(d["ranked"]), d["distinct_placements"])
        times = [x["time_s"] for x in d["ranked"]]
        self.assertEqual(times, sorted(times))

    def test_bad_operator_input_is_one_line(self):
        cases = [
            (["--workload", "count", "--memory-policy", "preferred:s9"], "no node \"s9\""),
            (["--workload", "count", "--memory-policy", "bind:s1", "--records", "1e10"], "does not fit"),
            (["--workload", "count", "--keys", "gaussian"], "unknown key distribution"),
            (["--workload", "sort"], "unknown workload"),
        ]
        for extra, message in cases:
            r = run("predict", "--topology", "xeon-e7-4880v2-4s", *extra)
            self.assertEqual(r.returncode, 1, (extra, r.stderr))
            self.assertIn(message, r.stderr, extra)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
