#!/usr/bin/env python3
"""`numatwin schedule --workload migration|migration-copy` and `predict --workload migration --algorithm scheduled`:
the bound no order beats, the ring's and the designed (blocked) order's times, and which order predict runs.

usage: cli_migration_schedule_test.py NUMATWIN_BINARY
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

BINARY = sys.argv[1]


def run(*args):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=900)


class MigrationSchedule(unittest.TestCase):
    def schedule(self, topology, workload, *extra):
        r = run("schedule", "--topology", topology, "--workload", workload, "--json", *extra)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_schedule_prints_the_bound_and_the_ring(self):
        # issue 18: ring and "scheduled" migration took the same time on the twisted ladder, the
        # second silently reusing the shuffle's design. Now schedule says what the bound is.
        for workload in ("migration", "migration-copy"):
            d = self.schedule("opteron-8220-8s-twisted-ladder", workload, "--threads", "16")
            self.assertEqual(d["workload"], workload)
            self.assertEqual(d["threads"], 16)
            self.assertGreaterEqual(d["ring_tight_s"], d["bound_s"] * (1 - 1e-9))
            self.assertEqual(d["bound_s"], max(d["data_s"], d["resource_s"]))
            self.assertLess(d["tight_gap"], 0.01)
            self.assertIn("bound", d["schedule"])
        text = run("schedule", "--topology", "opteron-8220-8s-twisted-ladder", "--workload", "migration")
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertIn("bound", text.stdout)
        self.assertIn("schedule: ", text.stdout)

    def test_the_blocked_order_closes_the_rings_gap_and_predict_runs_it(self):
        # 112 threads on 2 sockets: the ring re-binds every thread at every step.
        d = self.schedule("xeon-platinum-8480-2s", "migration")
        self.assertEqual((d["ring_binds"], d["fewest_binds"]), (112, 1))
        self.assertGreater(d["tight_gap"], 0.01)
        self.assertTrue(d["designed_kept"])
        self.assertLess(d["designed_tight_s"], d["ring_tight_s"])
        self.assertGreaterEqual(d["designed_tight_s"], d["bound_s"] * (1 - 1e-9))
        self.assertIn("designed (blocked) order", d["schedule"])
        p = run("predict", "--topology", "xeon-platinum-8480-2s", "--workload", "migration", "--algorithm", "scheduled",
                "--interval-samples", "0", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        j = json.loads(p.stdout)
        self.assertAlmostEqual(j["time_s"], d["designed_tight_s"], delta=1e-9 * d["designed_tight_s"])
        self.assertTrue(d["schedule"].startswith(j["schedule"]))  # schedule adds the loose runs
        self.assertNotIn("loose", j["schedule"])
        text = run("predict", "--topology", "xeon-platinum-8480-2s", "--workload", "migration", "--algorithm", "scheduled",
                   "--interval-samples", "0")
        self.assertIn("schedule: the designed (blocked) order", text.stdout)

    def test_loose_runs_choose_by_the_loose_times(self):
        # nehalem-ex-8s: the blocked order is faster tight but slower loose than the ring, so a
        # loose scheduled migration runs the ring's order and time.
        d = self.schedule("nehalem-ex-8s", "migration")
        self.assertTrue(d["designed_kept"])
        self.assertFalse(d["designed_kept_loose"])
        self.assertIn("loose: the ring", d["schedule"])
        p = run("predict", "--topology", "nehalem-ex-8s", "--workload", "migration", "--algorithm", "scheduled", "--sync", "loose",
                "--interval-samples", "0", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertAlmostEqual(json.loads(p.stdout)["time_s"], d["ring_loose_s"], delta=1e-9 * d["ring_loose_s"])

    def test_out_writes_the_order_predict_runs_for_the_sync(self):
        # nehalem-ex-8s, 64 threads, 8 per node (dense: thread t on node t // 8, CPUs 8 m .. 8 m + 7):
        # tight keeps the blocked order, in which every thread changes node N - 1 = 7 times (the
        # fewest, sim/migration_schedule.hpp); loose keeps the ring, which changes more often.
        with tempfile.TemporaryDirectory() as tmp:
            orders = {}
            for sync in ("tight", "loose"):
                path = os.path.join(tmp, sync + ".json")
                r = run("schedule", "--topology", "nehalem-ex-8s", "--workload", "migration-copy", "--sync", sync, "--out", path)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("wrote the " + sync + " order to " + path, r.stdout)
                with open(path) as f:
                    doc = json.load(f)
                self.assertEqual(doc["format"], "numatwin-shuffle-schedule")
                self.assertEqual(doc["format_version"], 1)
                self.assertEqual(doc["workload"], "migration-copy")
                self.assertEqual(doc["topology"], "nehalem-ex-8s")
                self.assertEqual(doc["threads"], 64)
                self.assertEqual([c // 8 for c in doc["cpus"]], [t // 8 for t in range(64)])
                steps = doc["steps"]
                for row in steps:
                    self.assertEqual(sorted(row), list(range(64)))  # every producer once per step
                for c in range(64):
                    self.assertEqual(sorted(row[c] for row in steps), list(range(64)))  # every producer once per thread
                orders[sync] = [max(sum(1 for k in range(1, 64) if steps[k][c] // 8 != steps[k - 1][c] // 8) for c in range(64))]
                orders[sync].append(doc["designed"])
            self.assertEqual(orders["tight"], [7, True])
            self.assertGreater(orders["loose"][0], 7)
            self.assertFalse(orders["loose"][1])

    def test_bad_requests_fail_in_one_line(self):
        r = run("schedule", "--topology", "nehalem-ex-4s", "--workload", "hash-join")
        self.assertEqual(r.returncode, 1)
        self.assertIn("expected shuffle, migration or migration-copy", r.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
