#!/usr/bin/env python3
"""Runs `numatwin topo from-spec` as a planner would: a shipped spec sheet in its own mode and as a
what-if in another, the derived topology used by `predict`, and one-line errors for bad sheets.

usage: cli_spec_test.py NUMATWIN_BINARY SPECS_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

BINARY = sys.argv[1]
SPECS = sys.argv[2]


def run(*args):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=300)


def spec(name):
    return os.path.join(SPECS, name + ".json")


class FromSpec(unittest.TestCase):
    def test_report_lists_figures_with_ranges_and_predicted_matrices(self):
        r = run("topo", "from-spec", spec("xeon-6980p-2s"))
        self.assertEqual(r.returncode, 0, r.stderr)
        for text in ("derived figures", "predicted idle latency", "predicted read bandwidth",
                     "predicted loaded latency", "s0n0 local idle latency", "socket step latency",
                     "not derived yet: core-to-core"):
            self.assertIn(text, r.stdout)

    def test_snc3_what_if_has_six_nodes_of_43_43_42_cores_and_predict_runs_on_it(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "gnr-snc3.json")
            r = run("topo", "from-spec", spec("xeon-6980p-2s"), "--mode", "snc3", "--out", out, "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(os.listdir(d), ["gnr-snc3.json"])  # written atomically, nothing left over
            report = json.loads(r.stdout)
            self.assertEqual(report["mode"], "snc3")
            self.assertEqual(len(report["cpu_nodes"]), 6)
            latency = report["idle_latency_ns"]
            # the same die is nearer than the next die, which is nearer than the far die and the other socket
            self.assertLess(latency[0][0], latency[0][1])
            self.assertLess(latency[0][1], latency[0][2])
            self.assertLess(latency[0][2], latency[0][3])
            for f in report["figures"]:
                self.assertLessEqual(f["low"], f["value"], f["figure"])
                self.assertGreaterEqual(f["high"], f["value"], f["figure"])
                self.assertTrue(f["basis"], f["figure"])
            with open(out) as f:
                cores = [n["cores"] for n in json.load(f)["nodes"] if n.get("kind") != "router"]
            self.assertEqual(cores, [43, 43, 42, 43, 43, 42])
            r = run("predict", "--topology", out, "--workload", "shuffle", "--threads", "12")
            self.assertEqual(r.returncode, 0, r.stderr)

    def test_nps4_of_the_genoa_sheet_derives_four_quadrant_nodes(self):
        r = run("topo", "from-spec", spec("epyc-9354p"), "--mode", "nps4", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(json.loads(r.stdout)["cpu_nodes"]), 4)

    def test_bad_input_is_one_line_naming_file_and_pointer(self):
        with tempfile.TemporaryDirectory() as d:
            with open(spec("xeon-6980p-2s")) as f:
                good = json.load(f)
            bad = dict(good, socket=dict(good["socket"], dies=[{"cores": 43}, {"cores": 43}, {"cores": 43}]))
            path = os.path.join(d, "bad.json")
            with open(path, "w") as f:
                json.dump(bad, f)
            r = run("topo", "from-spec", path)
            self.assertNotEqual(r.returncode, 0)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            self.assertIn(path, r.stderr)
            self.assertIn("/socket/dies", r.stderr)
            # a mode the vendor does not offer
            r = run("topo", "from-spec", spec("xeon-6980p-2s"), "--mode", "nps4")
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("/mode", r.stderr)
            r = run("topo", "from-spec", spec("xeon-6980p-2s"), "--mode", "snc7")
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("--mode", r.stderr)
            r = run("topo", "from-spec", os.path.join(d, "missing.json"))
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("missing.json", r.stderr)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]])
