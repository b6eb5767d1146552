#!/usr/bin/env python3
"""Runs `numatwin validate import-mlc` and `validate calibrate --from-mlc` on the real mlc outputs and
their edited copies (tests/data/mlc, PROVENANCE.md): the messages a user sees, and one clear error for
bad input.

usage: cli_mlc_test.py NUMATWIN_BINARY MLC_DATA_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

BINARY = sys.argv[1]
DATA = sys.argv[2]


def run(*args):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=1200)


def data(name):
    return os.path.join(DATA, name)


class MlcCommands(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        # The 6980P as numatwin generates it: 2 sockets of 128 cores, SNC2 (4 nodes) and SNC off
        # with one CXL expander per socket (nodes 2, 3 CPU-less).
        cls.snc2 = os.path.join(cls.tmp.name, "snc2.json")
        cls.cxl = os.path.join(cls.tmp.name, "cxl.json")
        for out, extra in ((cls.snc2, ["--snc", "2"]), (cls.cxl, ["--cxl-per-socket", "1"])):
            r = run("topo", "generate", "intel-snc", "--sockets", "2", "--cores-per-socket", "128", *extra, "--out", out)
            assert r.returncode == 0, r.stderr

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def calibrate(self, mlc, topology, *extra):
        out = os.path.join(self.tmp.name, "cal.json")
        return run("validate", "calibrate", "--from-mlc", data(mlc), "--topology", topology, "--out", out, *extra)

    def test_import_shows_cpu_less_columns_and_rows(self):
        r = run("validate", "import-mlc", data("xeon-6980p-2s-cxl-edited.txt"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("node 2: no CPUs (a column without a row): memory only", r.stdout)
        self.assertIn("node 3: no CPUs (a column without a row): memory only", r.stdout)
        j = json.loads(run("validate", "import-mlc", data("xeon-6980p-2s-cxl-edited.txt"), "--json").stdout)
        self.assertEqual(j["bandwidth_nodes"], [0, 1, 2, 3])
        self.assertEqual(j["bandwidth_cpu_nodes"], [0, 1])
        self.assertEqual(len(j["latency_matrix_ns"]), 2)

    def test_import_says_when_the_loaded_latency_is_not_measured(self):
        r = run("validate", "import-mlc", data("snc2-2s-local-above-neighbour-edited.txt"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("loaded latency: not measured (no --loaded_latency section)", r.stdout)

    def test_calibrate_on_a_cpu_less_run(self):
        r = self.calibrate("xeon-6980p-2s-cxl-edited.txt", self.cxl, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads(r.stdout)
        pointers = [p["pointer"] for p in report["parameters"]]
        self.assertIn("/nodes/2/memory_read_bandwidth_gbps", pointers)
        self.assertIn("/nodes/3/local_latency_ns", pointers)
        self.assertEqual(report["warnings"], [])

    def test_calibrate_names_the_snc_quirk_the_outliers_and_the_missing_curve(self):
        r = self.calibrate("snc2-2s-two-outliers-edited.txt", self.snc2)
        self.assertEqual(r.returncode, 0, r.stderr)
        # Worked in tests/validate/mlc_calibration_test.cpp: 0->2 is 61.0 against row 123.9 and column 123.5.
        self.assertIn("warning: " + data("snc2-2s-two-outliers-edited.txt") +
                      ": --bandwidth_matrix [node 0 -> memory of node 2]: measured 61.0 GB/s, but the rest of its row "
                      "(median 123.9 GB/s) and of its column (median 123.5 GB/s) imply about 123.7 GB/s (-51 %): an outlier, "
                      "left out of the fit", r.stdout)
        self.assertIn("[node 2 -> memory of node 0]: measured 60.5 GB/s", r.stdout)
        self.assertIn("node 1's own latency 126.0 ns is above node 0's 119.0 ns", r.stdout)
        self.assertIn("note: the loaded-latency curve is not measured", r.stdout)
        self.assertNotIn("mlc-bandwidth-0-2 ", r.stdout)  # left out of the points table

    def test_calibrate_refuses_a_cpu_reading_a_remote_node_faster_than_its_own(self):
        r = self.calibrate("xeon-6980p-2s-remote-faster-edited.txt", self.cxl)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "")
        lines = r.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertTrue(lines[0].startswith("numatwin: error: " + data("xeon-6980p-2s-remote-faster-edited.txt") +
                                            ": --latency_matrix [node 1 -> memory of node 0]: node 1's CPU reaches node 0's "
                                            "memory in 129.4 ns, faster than its own memory (410.0 ns)"), lines[0])

    def test_bad_input_is_one_error_naming_file_line_and_expectation(self):
        with open(data("xeon-6980p-2s-snc-off-mlc-v3.11b.txt")) as f:
            text = f.read()
        cases = {
            # line 24 is the bandwidth row of node 0
            "letters": (text.replace("554843.5", "554843.5x"),
                        ": line 24: expected a positive number in the bandwidth matrix, found \"554843.5x\""),
            "short": (text.replace("\t 449.2\t", "\t"), ": line 5: expected 2 values in the latency matrix row of node 0, found 1"),
            "cut": (text[:text.index("       1\t247281.1")],
                    ": line 24: truncated: the file ends inside the bandwidth section started at line 18 (1 of 2 rows"),
        }
        for name, (content, expected) in cases.items():
            path = os.path.join(self.tmp.name, name + ".txt")
            with open(path, "w") as f:
                f.write(content)
            for args in (("validate", "import-mlc", path),
                         ("validate", "calibrate", "--from-mlc", path, "--topology", self.snc2, "--out",
                          os.path.join(self.tmp.name, "x.json"))):
                r = run(*args)
                self.assertEqual(r.returncode, 1, name)
                lines = r.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertTrue(lines[0].startswith("numatwin: error: " + path + expected), lines[0])


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]])
