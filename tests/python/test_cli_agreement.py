"""The Python package against the binary: for several commands, numatwin.<command>(**options)
equals json.loads of `numatwin <command> --<options> --json`; errors carry the binary's message.

Run by CTest (tests/python/CMakeLists.txt) with PYTHONPATH at the built package and
NUMATWIN_CLI the binary of the same build."""

import json
import os
import subprocess
import tempfile
import unittest

import numatwin

CLI = os.environ["NUMATWIN_CLI"]
# Wall-clock figures (how long the search took), which differ from run to run.
WALL_CLOCK_KEYS = {"answer_s", "seconds"}


def without_wall_clock(value):
    if isinstance(value, dict):
        return {k: without_wall_clock(v) for k, v in value.items() if k not in WALL_CLOCK_KEYS}
    if isinstance(value, list):
        return [without_wall_clock(v) for v in value]
    return value


def cli_words(options):
    words = []
    for key, value in options.items():
        name = "--" + key.replace("_", "-")
        if value is True:
            words.append(name)
        elif isinstance(value, list):
            for item in value:
                words += [name, str(item)]
        else:
            words += [name, str(value)]
    return words


def run_cli(command, options, json_flag=True):
    words = [CLI, *command.split(), *cli_words(options)] + (["--json"] if json_flag else [])
    done = subprocess.run(words, capture_output=True, text=True, check=False)
    return done.returncode, done.stdout, done.stderr


class AgreesWithTheBinary(unittest.TestCase):
    CASES = [
        (numatwin.predict, "predict",
         dict(topology="xeon-gold-6548y-2s", workload="hash-join", records="1e9", build_records="1e8")),
        (numatwin.predict, "predict", dict(topology="opteron-8220-8s-twisted-ladder", threads=8, steps=True)),
        (numatwin.compare, "compare", dict(topology="opteron-8220-8s-twisted-ladder", threads=16)),
        (numatwin.compare, "compare", dict(topology="xeon-gold-6548y-2s", workload="hash-join", interval_samples=16)),
        (numatwin.sweep, "sweep", dict(topology="opteron-8220-8s-twisted-ladder", threads="2:16:2")),
        (numatwin.flows, "flows", dict(topology="opteron-8220-8s-twisted-ladder", flow=["cpus=s0:2,read=s3", "cpus=s1:2,read=s3"])),
        (numatwin.weights, "weights", dict(topology="xeon-max-9462-2s", workload="hash-join", join_algorithm="radix")),
        (numatwin.placements, "placements", dict(topology="opteron-8220-8s-twisted-ladder", threads=4)),
        (numatwin.check_published, "check published", dict(study="li")),
    ]

    def test_commands(self):
        for function, command, options in self.CASES:
            with self.subTest(command=command, options=options):
                status, out, err = run_cli(command, options)
                self.assertEqual(status, 0, err)
                self.assertEqual(without_wall_clock(function(**options)), without_wall_clock(json.loads(out)))

    def test_generated_topology(self):
        status, out, err = run_cli("topo generate ring", dict(nodes=4), json_flag=False)
        self.assertEqual(status, 0, err)
        generated = numatwin.generate_topology("ring", nodes=4)
        self.assertEqual(generated, json.loads(out))
        self.assertEqual(numatwin.load_topology("opteron-8220-8s-twisted-ladder")["name"], "opteron-8220-8s-twisted-ladder")
        # A document is passed to the commands through a file: the same prediction as from a file.
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "ring.json")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(out)
            status, cli_out, err = run_cli("predict", dict(topology=path, workload="shuffle"))
            self.assertEqual(status, 0, err)
            self.assertEqual(numatwin.predict(topology=generated, workload="shuffle"), json.loads(cli_out))

    def test_tables(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("pandas is not installed")
        result = numatwin.sweep(topology="opteron-8220-8s-twisted-ladder", threads="2:8:2")
        frame = result.to_pandas()
        self.assertEqual(len(frame), len(result["runs"]))
        self.assertIn("time_s", frame.columns)
        compared = numatwin.compare(topology="xeon-gold-6548y-2s", workload="hash-join", interval_samples=8).to_pandas()
        self.assertIn("uncertainty.time_s.p5", compared.columns)


class FailsAsTheBinaryDoes(unittest.TestCase):
    def test_bad_topology_file_has_the_binarys_message(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "bad.json")
            with open(path, "w", encoding="utf-8") as handle:
                json.dump({"format_version": 1, "name": "bad", "nodes": "many"}, handle)
            status, _, err = run_cli("predict", dict(topology=path))
            self.assertEqual(status, 1)
            with self.assertRaises(numatwin.Error) as raised:
                numatwin.predict(topology=path)
            self.assertEqual("numatwin: error: " + str(raised.exception) + "\n", err)
            self.assertIn(path, str(raised.exception))

    def test_unknown_option_names_it(self):
        with self.assertRaisesRegex(ValueError, "'thread'.*--thread"):
            numatwin.predict(topology="xeon-gold-6548y-2s", thread=4)

    def test_wrong_types_name_the_option(self):
        with self.assertRaisesRegex(ValueError, "--steps is a flag"):
            numatwin.predict(topology="xeon-gold-6548y-2s", steps=3)
        with self.assertRaisesRegex(ValueError, "--threads"):
            numatwin.predict(topology="xeon-gold-6548y-2s", threads="many")
        with self.assertRaisesRegex(ValueError, "--threads takes one value"):
            numatwin.predict(topology="xeon-gold-6548y-2s", threads=[1, 2])
        with self.assertRaisesRegex(ValueError, "--json is not an option from Python"):
            numatwin.predict(topology="xeon-gold-6548y-2s", json=True)

    def test_refused_value_is_a_value_error_with_the_binarys_message(self):
        status, _, err = run_cli("predict", dict(topology="xeon-gold-6548y-2s", interval_samples=1))
        self.assertEqual(status, 1)
        with self.assertRaises(numatwin.InvalidInput) as raised:
            numatwin.predict(topology="xeon-gold-6548y-2s", interval_samples=1)
        self.assertIsInstance(raised.exception, ValueError)
        self.assertEqual("numatwin: error: " + str(raised.exception) + "\n", err)


if __name__ == "__main__":
    unittest.main()
