#!/usr/bin/env python3
"""Runs `numatwin flows`, `weights` and `predict --numa-balancing` as a user would: outputs parse,
bad input is one clear line. (The other simulation commands: cli_sim_test.py.)

usage: cli_flows_test.py NUMATWIN_BINARY
"""
import csv
import io
import json
import shlex
import os
import subprocess
import sys
import tempfile
import unittest

BINARY = sys.argv[1]


def run(*args):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=900)


def flows(*args):
    return run("flows", "--topology", "nehalem-ex-4s-4link", *args)


class FlowsCommand(unittest.TestCase):
    # nehalem-ex-4s-4link: ring s0-s1-s2-s3-s0, every link 10.9 GB/s per direction, controllers
    # 24.7 GB/s. A read of s2 by s0 goes s2->s1->s0 (routes tie-break on the lower predecessor).

    def test_the_two_hop_stream_with_a_cross_stream_is_one_line(self):
        # Li et al.'s setting as one question: 12 threads of s0 read s2 (two hops) while 12 threads
        # of s1 read s2 over the same link s2->s1. Alone each would take the whole 10.9 GB/s of
        # that link (the file's measured one-link and two-hop figures); together max-min fairness
        # splits it: 10.9 / 2 = 5.45 GB/s each, both held by s2->s1.
        r = flows("--flow", "cpus=s0:12,read=s2", "--flow", "cpus=s1:12,read=s2", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        d = json.loads(r.stdout)
        for f in d["flows"]:
            self.assertEqual(f["threads"], 12)
            self.assertAlmostEqual(f["start"]["gbps"], 5.45, delta=1e-3)
            self.assertEqual(f["start"]["limit"], "resource")
            self.assertEqual(f["start"]["bottleneck"], "s2->s1")
        self.assertEqual(d["resources"][0]["name"], "s2->s1")
        self.assertAlmostEqual(d["resources"][0]["utilisation"], 1.0, delta=1e-6)
        utilisations = [x["utilisation"] for x in d["resources"]]
        self.assertEqual(utilisations, sorted(utilisations, reverse=True))
        self.assertEqual(len(d["resources"]), 4 + 8)  # 4 controllers, 8 directed links
        r = flows("--flow", "cpus=s0:12,read=s2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"s0:12\s+read s2\s+10\.90")

    def test_a_rate_cap_leaves_the_rest_to_the_other_flow(self):
        # Flow 1 capped at 2 GB/s; flow 2 gets the rest of s2->s1: 10.9 - 2 = 8.9 GB/s.
        r = flows("--flow", "cpus=s0:12,read=s2,rate-gbps=2", "--flow", "cpus=s1:12,read=s2", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        a, b = json.loads(r.stdout)["flows"]
        self.assertAlmostEqual(a["start"]["gbps"], 2.0, delta=1e-3)
        self.assertEqual(a["start"]["limit"], "rate cap")
        self.assertAlmostEqual(b["start"]["gbps"], 8.9, delta=1e-3)

    def test_flows_with_bytes_run_until_the_last_is_done(self):
        # 1 GB and 2 GB over the shared link: 5.45 GB/s each until flow 1 is done at 1 / 5.45 s,
        # then flow 2 alone at 10.9 GB/s for its last GB: 1 / 5.45 + 1 / 10.9 = 0.27523 s.
        r = flows("--flow", "cpus=s0:12,read=s2,bytes=1e9", "--flow", "cpus=s1:12,read=s2,bytes=2e9", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        d = json.loads(r.stdout)
        self.assertAlmostEqual(d["flows"][0]["finish_s"], 1 / 5.45, delta=1e-4)
        self.assertAlmostEqual(d["time_s"], 1 / 5.45 + 1 / 10.9, delta=1e-4)
        self.assertAlmostEqual(d["flows"][1]["mean_gbps"], 2 / (1 / 5.45 + 1 / 10.9), delta=1e-3)
        self.assertEqual(len(d["phases"]), 2)

    def test_cpu_sets_memory_spreads_and_copies(self):
        r = flows("--flow", "cpus=0-3+s1:2,read=interleave:s0+s1", "--flow", "cpus=s1:1,copy=s1>s3",
                  "--flow", "cpus=s2,write=s2:3+s3:1,lines-in-flight=4", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        a, b, c = json.loads(r.stdout)["flows"]
        # CPUs 0-3 are the first hardware threads of s0's cores 0-3; s1:2 takes s1's first two
        # cores (CPUs 8, 9); the copy's one thread takes s1's next free core (CPU 10); s2 alone is
        # one thread per core (CPUs 16-23).
        self.assertEqual(a["cpu_ids"], [0, 1, 2, 3, 8, 9])
        self.assertEqual(a["read"], {"s0": 0.5, "s1": 0.5})
        self.assertEqual(b["cpu_ids"], [10])
        self.assertEqual((b["read"], b["write"]), ({"s1": 1.0}, {"s3": 1.0}))
        self.assertEqual(c["cpu_ids"], list(range(16, 24)))
        self.assertEqual(c["write"], {"s2": 0.75, "s3": 0.25})
        self.assertEqual(c["lines_in_flight"], 4)

    def test_every_malformed_part_is_one_clear_error(self):
        cases = [
            (["cpus=s0:4,rd=s1"], "--flow 1: 'rd=s1': unknown key 'rd' (expected cpus, read, write, copy, bytes, rate-gbps, lines-in-flight)"),
            (["cpus=s0:4,read=s1", "cpus=s1:4,rd=s1"], "--flow 2: 'rd=s1': unknown key 'rd'"),
            (["read=s1"], "--flow 1: missing cpus="),
            (["cpus=s0:4"], "--flow 1: missing read=..., write=... or copy="),
            (["cpus=s9:4,read=s1"], "--flow 1: 'cpus=s9:4': no node 's9' (nodes with cores: s0, s1, s2, s3)"),
            (["cpus=s0:x,read=s1"], "expected NODE:COUNT with a whole COUNT >= 1, found 'x'"),
            (["cpus=s0:17,read=s1"], "s0 has 16 hardware threads and 16 of them are free"),
            (["cpus=s0:12,read=s1", "cpus=s0:8,read=s1"], "--flow 2: 'cpus=s0:8': s0:8 asks for 8 threads; s0 has 16 hardware threads and 4 of them are free"),
            (["cpus=0-3,read=s1", "cpus=3,read=s1"], "--flow 2: 'cpus=3': CPU 3 already runs a thread of flow 1"),
            (["cpus=64,read=s1"], "CPU 64 does not exist on nehalem-ex-4s-4link (64 hardware threads)"),
            (["cpus=3-1,read=s1"], "the range 3-1 runs backwards"),
            (["cpus=abc,read=s1"], "'abc' is neither a node"),
            (["cpus=s0:4,read=s7"], "--flow 1: 'read=s7': no node 's7' (nodes with memory: s0, s1, s2, s3)"),
            (["cpus=s0:4,read=s1,read=s2"], "'read=s2': 'read' is given twice"),
            (["cpus=s0:4,,read=s1"], "--flow 1: part 2 is empty"),
            (["cpus=s0:4,read"], "'read': expected KEY=VALUE"),
            (["cpus=s0:4,read="], "'read=': no value after '='"),
            (["cpus=s0:4,read=s1,bytes=-1"], "'bytes=-1': expected the flow's payload in bytes, a number > 0"),
            (["cpus=s0:4,read=s1,bytes=1e9x"], "found '1e9x'"),
            (["cpus=s0:4,read=s1,rate-gbps=0"], "'rate-gbps=0': expected the flow's rate cap in GB/s, a number > 0"),
            (["cpus=s0:4,read=s1,lines-in-flight=nan"], "'lines-in-flight=nan': expected the misses each thread keeps in flight"),
            (["cpus=s0:4,copy=s1"], "'copy=s1': expected SOURCE>TARGET"),
            (["cpus=s0:4,copy=s1>s2,read=s1"], "cannot be combined with read or write"),
            (["cpus=s0:4,read=s1:0+s2"], "'s1:0': expected NODE:WEIGHT with 0 < WEIGHT <= 1e9"),
            (["cpus=s0:4,read=s1:1e308+s2:1e308"], "'s1:1e308': expected NODE:WEIGHT with 0 < WEIGHT <= 1e9"),
            (["cpus=s0:4,read=s1+s1"], "node s1 is listed twice"),
            (["cpus=s0:4,read=s1++s2"], "an empty item"),
            ([""], "--flow 1: empty"),
        ]
        for specs, message in cases:
            args = [x for spec in specs for x in ("--flow", spec)]
            r = flows(*args)
            self.assertEqual(r.returncode, 1, (specs, r.stderr))
            self.assertIn(message, r.stderr, specs)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        r = flows()
        self.assertEqual(r.returncode, 1)
        self.assertIn("no flows", r.stderr)

    def test_a_flows_file_gives_the_same_answer_and_names_bad_fields(self):
        with tempfile.TemporaryDirectory() as tmp:
            def write(name, document):
                path = os.path.join(tmp, name)
                with open(path, "w") as f:
                    f.write(document if isinstance(document, str) else json.dumps(document))
                return path
            good = write("good.json", {"description": "two-hop stream and a cross stream",
                                       "flows": [{"cpus": "s0:12", "read": "s2"}, {"cpus": "s1:12", "read": "s2"}]})
            from_file = flows("--flows-file", good, "--json")
            from_specs = flows("--flow", "cpus=s0:12,read=s2", "--flow", "cpus=s1:12,read=s2", "--json")
            self.assertEqual(from_file.returncode, 0, from_file.stderr)
            self.assertEqual(json.loads(from_file.stdout), json.loads(from_specs.stdout))
            cases = [
                ({"flows": [{"cpus": "s0:4", "read": "s1"}, {"cpus": "s1:4", "read": "s9"}]}, "/flows/1/read: no node 's9'"),
                ({"flows": [{"cpus": "s0:4", "rd": "s1"}]}, "/flows/0/rd: unknown field"),
                ({"flows": [{"cpus": "s0:4", "read": "s1", "bytes": -1}]}, "/flows/0/bytes: expected a number > 0"),
                ({"flows": [{"cpus": "s0:4", "read": "s1", "rate_gbps": "5"}]}, "/flows/0/rate_gbps: expected a number"),
                ({"flows": [{"read": "s1"}]}, "/flows/0: missing required field \"cpus\""),
                ({"flows": [{"cpus": "s0:99", "read": "s1"}]}, "/flows/0/cpus: s0:99 asks for 99 threads"),
                ({"flows": []}, "/flows: expected at least one flow"),
                ({"flow": []}, "/flow: unknown field"),
                ("{not json", "not valid JSON"),
            ]
            for document, message in cases:
                path = write("bad.json", document)
                r = flows("--flows-file", path)
                self.assertEqual(r.returncode, 1, (document, r.stderr))
                self.assertIn(path + ": " if "not valid" not in message else path, r.stderr)
                self.assertIn(message, r.stderr, document)
                self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            r = flows("--flows-file", good, "--flow", "cpus=s0:1,read=s0")
            self.assertEqual(r.returncode, 1)
            self.assertIn("not both", r.stderr)


class PolicyCommands(unittest.TestCase):
    """weights and predict --numa-balancing."""

    def test_weights_says_which_weightings_beat_local_memory(self):
        # xeon-max-9462-2s, radix join: the per-node vectors beat local memory, the one vector does
        # not, so "faster than every weighting tried" would be wrong.
        r = run("weights", "--topology", "xeon-max-9462-2s", "--workload", "hash-join", "--join-algorithm", "radix",
                "--interval-samples", "8", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        by = {p["name"]: p["time_s"] for p in json.loads(r.stdout)["policies"]}
        self.assertLess(by["numatwin, per node"], by["local only"])
        self.assertLess(by["local only"], by["numatwin, one vector"])
        text = run("weights", "--topology", "xeon-max-9462-2s", "--workload", "hash-join", "--join-algorithm", "radix",
                   "--interval-samples", "8")
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertNotIn("faster than every weighting tried", text.stdout)
        self.assertIn("faster than the one-vector recommendation; only numatwin, per node beats it", text.stdout)

    def test_weights_recommends_and_compares(self):
        args = ["weights", "--topology", "skylake-4114-2s", "--workload", "hash-join", "--join-algorithm", "radix",
                "--threads", "10", "--interval-samples", "8"]
        r = run(*args, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        d = json.loads(r.stdout)
        names = [p["name"] for p in d["policies"]]
        self.assertEqual(names, ["numatwin, one vector", "numatwin, per node", "Linux auto", "pairwise isolated",
                                 "interleave", "local only"])
        by = {p["name"]: p for p in d["policies"]}
        # The search starts from the Linux auto, isolated and all-ones weights: never slower than them.
        for other in ("Linux auto", "pairwise isolated", "interleave"):
            self.assertLessEqual(by["numatwin, one vector"]["time_s"], by[other]["time_s"] * (1 + 1e-9))
        self.assertTrue(by["numatwin, one vector"]["policy"].startswith("weighted-interleave:"))
        self.assertTrue(all(line.startswith("echo ") and "/weighted_interleave/node" in line for line in d["sysfs"]))
        # The command that measures the recommendation for real names its vector and the kernel's
        # policy, and validate run parses it: here it stops at the topology (skylake-4114-2s is not
        # this machine), not at an option.
        check = d["validate_command"]
        self.assertIn("--memory-policy '" + by["numatwin, one vector"]["policy"] + "'", check)
        self.assertIn("--weighted-interleave-by kernel", check)
        words = shlex.split(check)
        self.assertEqual(words[:3], ["numatwin", "validate", "run"])
        r = run(*words[1:], "--join-algorithm", "radix", "--records", "1e4", "--build-records", "1e3")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("this machine", r.stderr.strip().splitlines()[-1])
        text = run(*args)
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertIn("numactl --weighted-interleave=", text.stdout)
        # Bad input: one clear line each.
        for bad, words in ((["--workload", "shuffle"], "places its buffers itself"),
                           (["--nodes", "s0"], "at least two memory nodes"),
                           (["--largest-weight", "300"], "1..255")):
            r = run("weights", "--topology", "skylake-4114-2s", *bad)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn(words, r.stderr)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        r = run("predict", "--topology", "skylake-4114-2s", "--workload", "count", "--memory-policy", "weighted-interleave:s0=3,s1=0")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("1..255", r.stderr)

    def test_predict_with_numa_balancing_moves_a_loaders_pages_to_the_workers(self):
        # COUNT whose input a loader wrote on s0: 3/4 of it (the other sockets' workers' chunks) can
        # move, and with enough executions all of it does; the first execution (before the first
        # scan at 1 s) runs as without balancing, the last reads local memory only.
        args = ["predict", "--topology", "xeon-e7-4880v2-4s", "--workload", "count", "--records", "2e8",
                "--groups", "1e6", "--memory-policy", "first-touch:loader", "--numa-balancing", "on",
                "--executions", "30", "--interval-samples", "0"]
        r = run(*args, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        b = json.loads(r.stdout)["numa_balancing"]
        # The headline is the run asked for (issue 39 item 2): time_s is the 30 executions with
        # balancing, and the level says that its other figures are one execution without.
        self.assertEqual(json.loads(r.stdout)["time_s"], b["time_s"])
        self.assertIn("30 executions back to back with automatic NUMA balancing", json.loads(r.stdout)["time_s_basis"])
        input_bytes = [d["bytes"] for d in json.loads(r.stdout)["datasets"] if d["name"] == "input"][0]
        self.assertAlmostEqual(b["movable_bytes"], 0.75 * input_bytes, delta=1e-6 * input_bytes)
        self.assertAlmostEqual(b["migrated_bytes"], b["movable_bytes"], delta=1e-6 * input_bytes)
        first, last = b["executions"][0], b["executions"][-1]
        self.assertAlmostEqual(first["time_s"], b["time_s_without_balancing"] / 30, delta=1e-9)
        self.assertAlmostEqual(first["local_access_ratio"], 0.25, delta=1e-9)
        self.assertAlmostEqual(last["local_access_ratio"], 1.0, delta=1e-9)
        self.assertEqual(b["hinting_fault_basis"], "default, not measured")
        # The faults follow the run's pages (huge pages on by default), and say so; --huge-pages
        # off or --balancing-page-bytes change them (issue 39 item 2: always 4 KiB before).
        self.assertEqual(b["page_bytes"], 2097152)
        self.assertEqual(b["page_bytes_basis"], "the run's pages (--huge-pages)")
        small = json.loads(run(*args, "--huge-pages", "off", "--json").stdout)["numa_balancing"]
        self.assertEqual(small["page_bytes"], 4096)
        given = json.loads(run(*args, "--balancing-page-bytes", "4096", "--json").stdout)["numa_balancing"]
        self.assertEqual((given["page_bytes"], given["page_bytes_basis"]), (4096, "--balancing-page-bytes"))
        self.assertGreater(sum(e["hinting_faults"] for e in given["executions"]),
                           100 * sum(e["hinting_faults"] for e in b["executions"]))
        text = run(*args)
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertIn("automatic NUMA balancing, 30 executions back to back", text.stdout)
        self.assertIn("per 2 MiB page (the run's pages: --huge-pages)", text.stdout)
        # ... and it comes first; the table of one execution without balancing follows, named so.
        self.assertLess(text.stdout.index("automatic NUMA balancing"),
                        text.stdout.index("one execution without NUMA balancing, for comparison"))
        self.assertIn("MB moved", text.stdout)
        for bad, words in ((["--numa-balancing", "maybe"], "on or off"),
                           (["--executions", "3"], "needs --numa-balancing on"),
                           (["--numa-balancing", "on", "--executions", "0"], "--executions must be >= 1"),
                           (["--numa-balancing", "on", "--balancing-scan-size-mb", "0"], "--balancing-scan-size-mb must be > 0"),
                           (["--workload", "shuffle", "--numa-balancing", "on"], "not for shuffle")):
            base = ["predict", "--topology", "xeon-e7-4880v2-4s", "--interval-samples", "0"]
            if "--workload" not in bad:
                base += ["--workload", "count"]
            r = run(*base, *bad)
            self.assertEqual(r.returncode, 1, (bad, r.stderr))
            self.assertIn(words, r.stderr)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
