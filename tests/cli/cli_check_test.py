#!/usr/bin/env python3
"""Runs `numatwin check published` as CI does: the shipped data must load and every must_hold entry
must stay within its tolerance; malformed data fails with one line naming the file and the JSON
pointer; a must_hold entry out of tolerance fails the command.

usage: cli_check_test.py NUMATWIN_BINARY PUBLISHED_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BINARY = sys.argv[1]
PUBLISHED = sys.argv[2]


def run(*args):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=600)


def load(name):
    with open(os.path.join(PUBLISHED, name), encoding="utf-8") as f:
        return json.load(f)


class ShippedData(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # The whole check twice (text and JSON); it is the slow part under the sanitizers.
        cls.text = run("check", "published", "--data", PUBLISHED)
        cls.json = run("check", "published", "--data", PUBLISHED, "--json")

    def test_every_must_hold_entry_holds(self):
        # The check itself: exit 1 names each must_hold entry out of tolerance.
        r = self.text
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"\d+ entries: \d+ pass, \d+ miss \(0 must hold\), \d+ cannot speak")

    def test_json_lists_every_entry_of_every_file_once(self):
        r = self.json
        self.assertEqual(r.returncode, 0, r.stderr)
        d = json.loads(r.stdout)
        ids = [e["id"] for e in d["entries"]]
        expected = []
        for name in sorted(os.listdir(PUBLISHED)):
            if name.endswith(".json"):
                expected += [e["id"] for e in load(name)["entries"]]
        self.assertEqual(ids, expected)
        counts = d["counts"]
        self.assertEqual(counts["pass"] + counts["miss"] + counts["cannot_speak"], len(ids))
        self.assertEqual(counts["must_hold_misses"], [])
        for e in d["entries"]:
            self.assertIn(e["verdict"], ("pass", "miss", "cannot speak"))
            if e["verdict"] == "cannot speak":
                self.assertTrue(e["detail"], e["id"])  # the reason
                self.assertFalse(e["must_hold"])
            if e["verdict"] == "miss":
                self.assertFalse(e["must_hold"], e["id"])
                self.assertTrue(e["note"], e["id"])  # why it may miss
            if e["ratio"] is not None:
                self.assertGreater(e["predicted"], 0.0)

    def test_ratio_is_predicted_over_published(self):
        # li-naive-one-socket: "<= 24.7 GB/s", so ratio = predicted / 24.7 (worked by hand).
        self.assertEqual(self.json.returncode, 0, self.json.stderr)
        by = {e["id"]: e for e in json.loads(self.json.stdout)["entries"]}
        naive = by["li-naive-one-socket"]
        self.assertAlmostEqual(naive["ratio"], naive["predicted"] / 24.7, places=9)

    def test_study_filter(self):
        r = run("check", "published", "--data", PUBLISHED, "--study", "durner", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        entries = json.loads(r.stdout)["entries"]
        self.assertEqual({e["study"] for e in entries}, {"durner"})
        self.assertEqual(len(entries), len(load("durner.json")["entries"]))

    def test_unknown_study_is_an_error_naming_the_studies(self):
        r = run("check", "published", "--data", PUBLISHED, "--study", "nobody")
        self.assertEqual(r.returncode, 1)
        self.assertIn("li", r.stderr)
        self.assertEqual(r.stdout, "")


class BadData(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write(self, document, name="x.json"):
        with open(os.path.join(self.dir, name), "w", encoding="utf-8") as f:
            f.write(document if isinstance(document, str) else json.dumps(document))

    def entry(self, **changes):
        e = {
            "id": "t-naive",
            "where": "w",
            "source": "s",
            "summary": "naive shuffle",
            "statement": "a statement",
            "published": {"relation": "<=", "value": 24.7, "unit": "GB/s"},
            "predict": {"kind": "product", "metric": "gbps", "terms": [
                {"run": {"topology": "nehalem-ex-4s", "workload": "shuffle", "algorithm": "naive", "threads": 8,
                         "bytes": 1e8}}]},
            "tolerance": {"relative": 0.05, "rationale": "r"},
            "must_hold": True,
            "consistency_only": False,
            "basis": "b",
        }
        e.update(changes)
        return e

    def check_fails(self, document, pointer, words):
        self.write(document)
        r = run("check", "published", "--data", self.dir)
        self.assertEqual(r.returncode, 1, r.stdout)
        line = r.stderr.strip()
        self.assertEqual(len(line.splitlines()), 1, line)
        self.assertIn("x.json: " + pointer + ": " if pointer else "x.json: ", line)
        self.assertIn(words, line)

    def test_a_good_entry_passes(self):
        self.write({"study": "t", "title": "t", "entries": [self.entry()]})
        r = run("check", "published", "--data", self.dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("1 entries: 1 pass, 0 miss (0 must hold), 0 cannot speak", r.stdout)

    def test_a_must_hold_entry_out_of_tolerance_fails_the_check(self):
        # A naive shuffle cannot reach 1000 GB/s on a machine whose sockets read 24.7 GB/s each.
        e = self.entry(published={"relation": ">=", "value": 1000.0, "unit": "GB/s"})
        self.write({"study": "t", "title": "t", "entries": [e]})
        r = run("check", "published", "--data", self.dir)
        self.assertEqual(r.returncode, 1)
        self.assertIn("MISS (must hold)", r.stdout)
        self.assertIn("t-naive", r.stderr)

    def test_the_same_miss_without_must_hold_is_listed_with_its_note(self):
        e = self.entry(published={"relation": ">=", "value": 1000.0, "unit": "GB/s"}, must_hold=False, note="known miss: test")
        self.write({"study": "t", "title": "t", "entries": [e]})
        r = run("check", "published", "--data", self.dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("t-naive: known miss: test", r.stdout)

    def test_not_json(self):
        self.check_fails("{", "", "not valid JSON")

    def test_unknown_field(self):
        self.check_fails({"study": "t", "title": "t", "entries": [self.entry(colour="red")]}, "/entries/0/colour",
                         "unknown field")

    def test_missing_tolerance_rationale(self):
        self.check_fails({"study": "t", "title": "t", "entries": [self.entry(tolerance={"relative": 0.1})]},
                         "/entries/0/tolerance/rationale", "missing required field")

    def test_bad_relation(self):
        e = self.entry(published={"relation": "~", "value": 1.0, "unit": "x"})
        self.check_fails({"study": "t", "title": "t", "entries": [e]}, "/entries/0/published/relation", "expected about")

    def test_bad_workload_value_names_the_run(self):
        e = self.entry()
        e["predict"]["terms"][0]["run"]["algorithm"] = "zigzag"
        self.check_fails({"study": "t", "title": "t", "entries": [e]}, "/entries/0/predict/terms/0/run", "zigzag")

    def test_bad_allocation_names_its_field(self):
        e = self.entry()
        e["predict"]["terms"][0]["run"].update({"workload": "median", "allocation": "per-tuple", "records": 1e6})
        self.check_fails({"study": "t", "title": "t", "entries": [e]}, "/entries/0/predict/terms/0/run/allocation",
                         "expected preallocated, per-group or per-bucket")

    def test_allocation_that_does_not_fit_the_workload_names_the_run(self):
        e = self.entry()
        e["predict"]["terms"][0]["run"].update({"workload": "count", "allocation": "per-group", "records": 1e6})
        self.check_fails({"study": "t", "title": "t", "entries": [e]}, "/entries/0/predict/terms/0/run", "--allocation per-group")

    def test_unknown_topology(self):
        e = self.entry()
        e["predict"]["terms"][0]["run"]["topology"] = "no-such-machine"
        self.check_fails({"study": "t", "title": "t", "entries": [e]}, "/entries/0/predict/terms/0/run/topology",
                         "no-such-machine")

    def test_must_hold_false_needs_a_note(self):
        self.check_fails({"study": "t", "title": "t", "entries": [self.entry(must_hold=False)]}, "/entries/0/must_hold",
                         "note")

    def test_cannot_speak_cannot_be_must_hold(self):
        e = {"id": "t-x", "where": "w", "source": "s", "summary": "s", "statement": "s", "published": {"text": "t"},
             "predict": {"kind": "cannot-speak", "reason": "energy: not modelled"}, "must_hold": True}
        self.check_fails({"study": "t", "title": "t", "entries": [e]}, "/entries/0/must_hold", "cannot")

    def test_duplicate_id(self):
        self.check_fails({"study": "t", "title": "t", "entries": [self.entry(), self.entry()]}, "/entries/1/id", "unique")

    def test_crossover_winner_must_be_a_variant(self):
        run_spec = {"topology": "nehalem-ex-4s", "workload": "partitioned-aggregation", "threads": 8, "records": 1e6}
        e = self.entry(published={"first_winner": "migration", "last_winner": "teleport"},
                       predict={"kind": "crossover", "metric": "mtuples_per_s", "groups_per_partition": [10, 1000],
                                "variants": [{"label": "migration", "run": dict(run_spec, strategy="migration")},
                                             {"label": "shuffle", "run": dict(run_spec, strategy="shuffle")}]},
                       tolerance={"rationale": "r"})
        self.check_fails({"study": "t", "title": "t", "entries": [e]}, "/entries/0/published/last_winner",
                         "expected the label")


    # Adaptive engine runs: a shipped scenario by name, the adaptive command's options without the dashes.
    def adaptive_entry(self, **run_changes):
        sel = {"topology": "xeon-e7-4880v2-4s", "scenario": "stealing-vs-selectivity", "duration": 2, "placer": "off"}
        sel.update(run_changes)
        return self.entry(published={"relation": ">", "value": 0.0001, "unit": "queries/s"},
                          predict={"kind": "product", "metric": "queries_per_s", "terms": [
                              {"run": dict(sel, stealing="deny")},
                              {"best_of": [dict(sel, stealing="allow"), dict(sel, stealing="deny")], "power": -1}]})

    def test_an_adaptive_entry_runs_the_engine(self):
        # deny over the best of (allow, deny) is at most 1 and above 0: "> 0.0001" passes.
        self.write({"study": "t", "title": "t", "entries": [self.adaptive_entry()]})
        r = run("check", "published", "--data", self.dir, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        e = json.loads(r.stdout)["entries"][0]
        self.assertEqual(e["verdict"], "pass")
        self.assertLessEqual(e["predicted"], 1.0)

    def test_unknown_scenario_names_the_field(self):
        self.check_fails({"study": "t", "title": "t", "entries": [self.adaptive_entry(scenario="no-such-scenario")]},
                         "/entries/0/predict/terms/0/run/scenario", "no-such-scenario")

    def test_adaptive_run_with_a_workload_option_is_an_unknown_field(self):
        self.check_fails({"study": "t", "title": "t", "entries": [self.adaptive_entry(threads=4)]},
                         "/entries/0/predict/terms/0/run/threads", "unknown field")

    def test_bad_adaptive_override_names_the_run(self):
        self.check_fails({"study": "t", "title": "t", "entries": [self.adaptive_entry(selectivity=2)]},
                         "/entries/0/predict/terms/0/run", "--selectivity")

    def test_queries_per_s_needs_a_scenario_and_a_scenario_needs_it(self):
        e = self.entry()
        e["predict"]["metric"] = "queries_per_s"
        self.check_fails({"study": "t", "title": "t", "entries": [e]}, "/entries/0/predict/terms/0/run",
                         "expected a scenario")
        e = self.adaptive_entry()
        e["predict"]["metric"] = "gbps"
        self.check_fails({"study": "t", "title": "t", "entries": [e]}, "/entries/0/predict/terms/0/run",
                         "queries_per_s")

    def test_best_of_needs_two_runs_and_excludes_run(self):
        e = self.adaptive_entry()
        e["predict"]["terms"][1]["best_of"] = e["predict"]["terms"][1]["best_of"][:1]
        self.check_fails({"study": "t", "title": "t", "entries": [e]}, "/entries/0/predict/terms/1/best_of",
                         "at least two runs")
        e = self.adaptive_entry()
        e["predict"]["terms"][1]["run"] = e["predict"]["terms"][0]["run"]
        self.check_fails({"study": "t", "title": "t", "entries": [e]}, "/entries/0/predict/terms/1", "either")


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]])
