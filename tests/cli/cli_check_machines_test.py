#!/usr/bin/env python3
"""Runs `numatwin check machines` over the shipped corpus: the table's shape, every corpus machine
(and lab machine) in it, JSON and --out, one-line errors for bad input. It does not ask that the
targets are met: the check reports them.

usage: cli_check_machines_test.py NUMATWIN_BINARY CORPUS_DIR
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BINARY = sys.argv[1]
CORPUS = sys.argv[2]
CLASSES = ["idle_latency_ns", "bandwidth_gbps", "peak_injection_gbps", "loaded_latency", "c2c_latency_ns"]


def run(*args):
    return subprocess.run([BINARY, "check", "machines", *args], capture_output=True, text=True, timeout=600)


def load(path):
    with open(path) as f:
        return json.load(f)


def ids(pattern):
    return sorted(load(f)["id"] for f in glob.glob(os.path.join(CORPUS, pattern)))


class CheckMachines(unittest.TestCase):
    def test_table_has_every_class_and_every_machine(self):
        r = run("--corpus", CORPUS)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout
        per_class, rest = out.split("Per figure class\n", 1)[1].split("Per machine\n", 1)
        header = per_class.splitlines()[0].split()
        for column in ("count", "median", "worst", "inside"):
            self.assertIn(column, header)
        for c in CLASSES:
            self.assertIn("\n" + c + " ", "\n" + per_class)
        per_machine = rest.split("Not predicted", 1)[0]
        corpus_ids = ids("*.json")
        self.assertGreaterEqual(len(corpus_ids), 20)
        for machine in corpus_ids + ids("lab/*.json"):
            self.assertIn("\n" + machine + " ", "\n" + per_machine, machine)
        self.assertIn("c2c_latency_ns: ", out.split("Not predicted", 1)[1])  # listed with its reason
        self.assertIn("Targets (issue 35): median |error| <= 15 % in every figure class: ", out)
        self.assertRegex(out, r"intervals cover >= 80 % of the measured figures: (met|NOT met)")

    def test_json_has_every_figure_with_its_interval(self):
        r = run("--corpus", CORPUS, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads(r.stdout)
        self.assertEqual(sorted(report["classes"]), sorted(CLASSES))
        machines = {m["id"]: m for m in report["machines"]}
        self.assertEqual(sorted(machines), sorted(ids("*.json") + ids("lab/*.json")))
        checked = 0
        for m in machines.values():
            for f in m["figures"]:
                self.assertLessEqual(f["low"], f["predicted"])
                self.assertLessEqual(f["predicted"], f["high"])
                self.assertEqual(f["inside"], f["low"] <= f["measured"] <= f["high"])
                checked += 1
            for u in m["not_predicted"]:
                self.assertTrue(u["reason"])
        self.assertGreater(checked, 100)
        self.assertGreater(report["classes"]["c2c_latency_ns"]["not_predicted"], 0)

    def test_one_machine_and_out_file(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "check.txt")
            r = run("--corpus", CORPUS, "--machine", "haswell-e5-2680v3-2s", "--out", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, "")
            self.assertEqual(os.listdir(d), ["check.txt"])  # written atomically, nothing left over
            with open(out) as f:
                text = f.read()
            per_machine = text.split("Per machine\n", 1)[1].split("Not predicted", 1)[0]
            self.assertIn("haswell-e5-2680v3-2s", per_machine)
            self.assertNotIn("haswell-e5-2699v3-2s", per_machine)

    def test_rules_fitted_on_every_machine_name_their_machines(self):
        r = run("--corpus", CORPUS, "--rules")
        self.assertEqual(r.returncode, 0, r.stderr)
        rules = json.loads(r.stdout)
        for key in ("generations", "die_step_ns", "dram_read_efficiency", "write_turnaround", "link_efficiency",
                    "queue_exponent"):
            self.assertIn(key, rules)
        haswell = rules["generations"]["haswell-ep"]["domain_latency_ns"]
        self.assertLessEqual(haswell["low"], haswell["value"])
        self.assertLessEqual(haswell["value"], haswell["high"])
        self.assertIn("haswell-e5-2680v3-2s", haswell["basis"])

    def test_unknown_machine_is_one_line_naming_the_corpus(self):
        r = run("--corpus", CORPUS, "--machine", "no-such-box")
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("no-such-box", r.stderr)
        self.assertIn("haswell-e5-2680v3-2s", r.stderr)

    def test_bad_corpus_file_is_one_line_with_file_and_pointer(self):
        with tempfile.TemporaryDirectory() as d:
            shutil.copy(os.path.join(CORPUS, "haswell-e5-2680v3-2s.json"), d)
            doc = load(os.path.join(CORPUS, "skylake-gold6140-2s.json"))
            doc["measurements"][3]["value"] = "fast"
            with open(os.path.join(d, "broken.json"), "w") as f:
                json.dump(doc, f)
            r = run("--corpus", d)
            self.assertNotEqual(r.returncode, 0)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            self.assertIn("broken.json: /measurements/3/value: expected", r.stderr)
            r = run("--corpus", os.path.join(d, "missing"))
            self.assertNotEqual(r.returncode, 0)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
