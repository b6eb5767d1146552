#!/usr/bin/env python3
"""In-core cycles per iteration of the database kernels' inner loops, per microarchitecture.

Compiles the kernel sources (validate/src) with clang++-14 -S for each -march, finds the
per-tuple loop of each kernel in the assembly (clang's loop comments plus the -g line table),
takes one path around it by a stated rule, and runs llvm-mca-14 on that path. Writes
topologies/cores/loop-cycles-llvm-mca-14.json. README.md beside this file explains the numbers,
the rules and the limits. Python 3 standard library only; one command:

    python3 tools/loop-cycles/derive.py

Deterministic: the same sources, compiler and llvm-mca give the same file (the date is the one
field that follows the day; --date fixes it).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
OUTPUT = os.path.join("topologies", "cores", "loop-cycles-llvm-mca-14.json")

CLANG = "/usr/bin/clang++-14"
MCA = "/usr/bin/llvm-mca-14"
TRIPLE = "x86_64-unknown-linux-gnu"
ITERATIONS = 200
# -fno-unroll-loops: one loop iteration is one tuple. -fno-vectorize: the loop vectorizer would turn
# the index join's leaf loop into AVX-512 gathers (4 tuples an iteration) on skylake-avx512 and
# sapphirerapids only; the project's own build (GCC, generic x86-64) has no gathers. That loop's
# vectorised form is reported beside it (VECTORIZED_UNITS, index_leaf_vectorised).
OPT_FLAGS = ["-O2", "-fno-unroll-loops", "-fno-vectorize", "-DNDEBUG"]
VECTORIZED_UNITS = ["index_join"]
LINE_TABLE_FLAG = "-gline-tables-only"  # attributes instructions to source lines; checked not to change code

# The flags of the project's build that matter to the code (compile_commands.json of the release
# build; its -O3 and warnings are replaced by OPT_FLAGS). Used when no compile database is given.
DEFAULT_INCLUDE_FLAGS = ["-Ivalidate/include", "-Imodel/include", "-Isim/include", "-Ishuffle/include",
                         "-isystem", "/usr/include/eigen3"]
DEFAULT_STD = "-std=c++20"
DEFAULT_COMPILE_COMMANDS = "/work/main/build/release/compile_commands.json"

# Translation units: name -> (source, the project file whose compile flags it takes, extra flags).
UNITS = {
    "aggregation": ("validate/src/kernels/aggregation_kernels.cpp", "validate/src/kernels/aggregation_kernels.cpp", []),
    "hash_join": ("validate/src/kernels/hash_join_kernels.cpp", "validate/src/kernels/hash_join_kernels.cpp", []),
    "index_join": ("validate/src/kernels/index_join_kernel.cpp", "validate/src/kernels/index_join_kernel.cpp", []),
    "shuffle": ("validate/src/kernels/shuffle_kernels.cpp", "validate/src/kernels/shuffle_kernels.cpp", []),
    "sort_merge": ("validate/src/kernels/sort_merge_join_kernel.cpp", "validate/src/kernels/sort_merge_join_kernel.cpp", []),
    "subarray": ("validate/src/kernels/subarray_kernel.cpp", "validate/src/kernels/subarray_kernel.cpp", []),
    # radix_join_steps.hpp is header-only: radix_steps.cpp holds one out-of-line copy per step.
    "radix": ("tools/loop-cycles/radix_steps.cpp", "validate/src/kernels/radix_join_kernel.cpp", ["-Ivalidate/src"]),
}

# The project's shipped microarchitectures: key -> clang -march, llvm-mca -mcpu, the machines.
MICROARCHITECTURES = [
    ("nehalem", "nehalem", "nehalem", "Xeon X7560 / E7520 (Nehalem-EX)"),
    ("sandybridge", "sandybridge", "sandybridge", "Xeon E5-2630 (Sandy Bridge-EP)"),
    ("ivybridge", "ivybridge", "ivybridge", "Xeon E7-4880 v2 / E7-8880 v2 (Ivy Bridge-EX)"),
    ("haswell", "haswell", "haswell", "Xeon E7-8890 v3 (Haswell-EX, SGI UV 300H)"),
    ("broadwell", "broadwell", "broadwell", "Xeon E7-4850 v4 (Broadwell-EX)"),
    ("skylake-avx512", "skylake-avx512", "skylake-avx512", "Xeon Silver 4114 (Skylake-SP)"),
    ("sapphirerapids", "sapphirerapids", "sapphirerapids",
     "Xeon Platinum 8480+, Xeon Max 9462 (Sapphire Rapids), Xeon Gold 6548Y+ and this project's host "
     "(Emerald Rapids, family 6 model 207): LLVM 14 has no Emerald Rapids target"),
    ("znver3", "znver3", "znver3",
     "EPYC 9354P (Genoa, Zen 4): LLVM 14 has no znver4 target, so znver3 (Zen 3) is the nearest"),
    ("k8", "k8", "k8", "Opteron 8220 (K8, Santa Rosa)"),
]

# Shipped topologies -> microarchitecture key (for the index join's depth and the summary).
MACHINES = [
    ("nehalem-ex-4s.json", "nehalem"), ("nehalem-ex-4s-4link.json", "nehalem"),
    ("nehalem-ex-8s.json", "nehalem"), ("xeon-e7520-4s.json", "nehalem"),
    ("sandybridge-e5-2630-2s.json", "sandybridge"),
    ("xeon-e7-4880v2-4s.json", "ivybridge"), ("xeon-e7-8880v2-8s.json", "ivybridge"),
    ("sgi-uv300h-32s.json", "haswell"),
    ("xeon-e7-4850v4-4s.json", "broadwell"),
    ("skylake-4114-2s.json", "skylake-avx512"),
    ("xeon-platinum-8480-2s.json", "sapphirerapids"), ("xeon-max-9462-2s.json", "sapphirerapids"),
    ("xeon-gold-6548y-2s.json", "sapphirerapids"), ("spr-cxl-2s.json", "sapphirerapids"),
    ("epyc-9354p-nps1.json", "znver3"), ("epyc-9354p-nps4.json", "znver3"),
    ("opteron-8220-8s-twisted-ladder.json", "k8"),
]

# llvm-mca names a model's resources with a prefix: prefix -> (model in X86.td, the CPU it models).
MODEL_PREFIXES = {
    "SB": ("SandyBridgeModel", "sandybridge"),
    "HW": ("HaswellModel", "haswell"),
    "BW": ("BroadwellModel", "broadwell"),
    "SKL": ("SkylakeClientModel", "skylake"),
    "SKX": ("SkylakeServerModel", "skylake-avx512"),
    "ICX": ("IceLakeModel", "icelake-server"),
    "Zn3": ("Znver3Model", "znver3"),
    "Zn2": ("Znver2Model", "znver2"),
    "Zn": ("Znver1Model", "znver1"),
}

# The cost microbenchmarks' shapes that the loops' paths and the derived costs follow
# (validate/src/measure/cost_operator_microbenchmarks.cpp, cost_microbenchmark_runner.hpp).
MERGE_FACTS = 8192
MERGE_DIMENSIONS = 2048
SELECT_MEDIAN_OF_THREE_COMPARISONS = 2.75  # expected comparisons per value, median-of-3 FIND of the median
MINIMUM_CYCLES = 0.5  # cost_microbenchmarks.hpp's kMinimumCycles


# ── Path items: what an instruction must be to satisfy a requirement ────────────────────────

@dataclass(frozen=True)
class Insn:
    """An instruction whose text (mnemonic and operands) matches `pattern`."""
    pattern: str

    def describe(self) -> str:
        return f"instruction /{self.pattern}/"


@dataclass(frozen=True)
class Src:
    """An instruction attributed (line table) to the first line containing `text` in the file
    ending in `file`, searched from the first line containing `after` when given (otherwise the
    text must occur once). `load`: the instruction must also read memory."""
    file: str
    text: str
    after: str | None = None
    load: bool = False

    def describe(self) -> str:
        where = f" after '{self.after}'" if self.after else ""
        return f"{self.file}: '{self.text}'{where}" + (" (a load)" if self.load else "")


@dataclass
class PathSpec:
    weight: int
    require: list = field(default_factory=list)
    forbid: list = field(default_factory=list)
    trips: list = field(default_factory=list)  # (item, n): the inner loop holding item runs n times
    label: str = ""


@dataclass
class LoopSpec:
    key: str
    feeds: str | None
    unit: str
    unit_count: float  # units (tuples, comparisons, ...) per iteration of the path mix
    unit_count_rule: str
    unit_name: str
    functions: str  # regex on the mangled symbol
    contains: list
    excludes: list
    paths: list
    rule: str
    notes: list = field(default_factory=list)
    check_loaded_elements: int | None = None  # elements of 8 bytes loaded per iteration (vector check)
    variant: str = "scalar"  # "vectorized": from the units compiled without -fno-vectorize
    lanes_from: str | None = None  # tuples per iteration = 64-bit lanes of this instruction's register


# ── The loops ─────────────────────────────────────────────────────────────────────────────────

SHT = "shared_hash_table.hpp"
PREFETCH = Insn(r"^prefetch")
STREAM_FLUSH = Insn(r"^v?movnt")
CALL = Insn(r"^call")
LOCK = Insn(r"^lock\b")


def streamed_paths(extra_require=(), extra_forbid=()):
    """for_each_streamed's prefetching loop: the prefetch runs once per line (every 4th tuple)."""
    return [
        PathSpec(3, require=list(extra_require), forbid=[PREFETCH, *extra_forbid], label="no prefetch"),
        PathSpec(1, require=[PREFETCH, *extra_require], forbid=list(extra_forbid), label="prefetch"),
    ]


LOOPS = [
    LoopSpec(
        key="histogram", feeds="scan_cycles_per_tuple", unit="tuple", unit_count=1,
        unit_count_rule="one tuple per iteration", unit_name="tuples",
        functions=r"loop_cycles9histogramE", contains=[PREFETCH], excludes=[],
        paths=streamed_paths(),
        rule="radix::count_partitions with 2^8 partitions (kRadixBits = 8, a constant, as the cost "
             "microbenchmark calls it), for_each_streamed's main loop: 3 iterations without and 1 with "
             "the once-per-line prefetch of the tuple 256 ahead"),
    LoopSpec(
        key="histogram_runtime_bits", feeds=None, unit="tuple", unit_count=1,
        unit_count_rule="one tuple per iteration", unit_name="tuples",
        functions=r"loop_cycles22histogram_runtime_bitsE", contains=[PREFETCH], excludes=[],
        paths=streamed_paths(),
        rule="the same loop with the partition bits passed at run time, as radix_join_kernel.cpp "
             "calls it (a variable shift)"),
    LoopSpec(
        key="count_plain", feeds="hash_cycles_per_tuple", unit="tuple", unit_count=1,
        unit_count_rule="one tuple per iteration", unit_name="tuples",
        functions=r"count_aggregate",
        contains=[PREFETCH, Src(SHT, "if (current == key) return e;")], excludes=[LOCK],
        paths=[PathSpec(1, require=[PREFETCH, Src(SHT, "if (current == key) return e;")],
                        forbid=[Src(SHT, "e.key.store(key, std::memory_order_relaxed);",
                                    after="find_or_insert(std::uint64_t key")],
                        label="prefetch, first slot holds the key")],
        rule="count_aggregate(concurrent = false), prefetched_loop's main loop: the prefetch of tuple "
             "i + 32 taken (i + d < n), the probe loop once (the first slot holds the key), no insert"),
    LoopSpec(
        key="count_atomic", feeds="atomic_update (count_atomic - count_plain)", unit="tuple",
        unit_count=1, unit_count_rule="one tuple per iteration", unit_name="tuples",
        functions=r"count_aggregate",
        contains=[PREFETCH, LOCK], excludes=[],
        paths=[PathSpec(1, require=[PREFETCH, Src(SHT, "if (current == key) return e;")],
                        forbid=[Insn(r"cmpxchg")], label="prefetch, first slot holds the key")],
        rule="count_aggregate(concurrent = true): as count_plain, the count added by lock incq "
             "(fetch_add), no compare-and-swap (the key is there)"),
    LoopSpec(
        key="join_build", feeds="join_cycles_per_tuple (mean of build and probe)", unit="tuple",
        unit_count=1, unit_count_rule="one tuple per iteration", unit_name="tuples",
        functions=r"hash_join_build",
        contains=[PREFETCH, Src(SHT, "if (current == kEmptyKey) {", after="void insert(std::uint64_t key")],
        excludes=[LOCK],
        paths=[PathSpec(1, require=[PREFETCH, Src(SHT, "if (current == kEmptyKey) {",
                                                  after="void insert(std::uint64_t key")],
                        label="prefetch, first slot empty")],
        rule="hash_join_build(concurrent = false, one worker as the microbenchmark): prefetch taken, "
             "the first slot is empty and takes the tuple"),
    LoopSpec(
        key="join_probe", feeds="join_cycles_per_tuple (mean of build and probe)", unit="tuple",
        unit_count=1, unit_count_rule="one tuple per iteration", unit_name="tuples",
        functions=r"hash_join_probe", contains=[PREFETCH, Src("hash_join_kernels.cpp", "++matches;")],
        excludes=[],
        paths=[PathSpec(1, require=[PREFETCH, Src("hash_join_kernels.cpp", "++matches;")],
                        label="prefetch, first slot holds the key")],
        rule="hash_join_probe: prefetch taken, the first slot holds the key (every key found, as the "
             "microbenchmark)"),
    LoopSpec(
        key="index_level", feeds="join (index join probe: per tuple and inner level)", unit="tuple-level",
        unit_count=1, unit_count_rule="one tuple of the batch at one inner level per iteration",
        unit_name="tuple-levels",
        functions=r"index_join_probe", contains=[PREFETCH], excludes=[],
        paths=[PathSpec(1, label="straight line")],
        rule="index_join_probe's inner-level loop (k over the batch of 32): the branch-free 3-step "
             "search of one node and the prefetch of the child; one iteration per tuple and level"),
    LoopSpec(
        key="index_leaf", feeds="join (index join probe: per tuple at the leaf)", unit="tuple",
        unit_count=1, unit_count_rule="one tuple per iteration", unit_name="tuples",
        functions=r"index_join_probe", contains=[Src("index_join_kernel.cpp", "const bool hit = keys[c] == key;")],
        excludes=[PREFETCH],
        paths=[PathSpec(1, require=[Src("index_join_kernel.cpp", "checksum += hit ?", load=True)],
                        label="key found")],
        rule="index_join_probe's leaf loop: the node search and the key found (all found, as the "
             "microbenchmark; the path that loads the probe tuple's value for the checksum)"),
    LoopSpec(
        key="index_leaf_vectorised", feeds=None, unit="tuple", unit_count=1,
        unit_count_rule="the 64-bit lanes of the gather's vector register", unit_name="tuples",
        functions=r"index_join_probe",
        contains=[Src("index_join_kernel.cpp", "const bool hit = keys[c] == key;"), Insn(r"gather")],
        excludes=[PREFETCH],
        paths=[PathSpec(1, label="straight line")],
        rule="only where clang's loop vectorizer (without -fno-vectorize) turns the leaf loop into "
             "gathers: one vector iteration, per tuple = per iteration / lanes; the scalar remainder "
             "loop (a few tuples of each batch of 32) is not in it",
        variant="vectorized", lanes_from=r"gather"),
    LoopSpec(
        key="group_update", feeds="group_cycles_per_tuple", unit="tuple", unit_count=1,
        unit_count_rule="one tuple per iteration", unit_name="tuples",
        functions=r"aggregate_piece", contains=[PREFETCH], excludes=[],
        paths=[PathSpec(1, require=[PREFETCH, Src("shuffle_kernels.cpp", "++entry.count;")],
                        label="prefetch, first slot holds the group")],
        rule="aggregate_piece: prefetch of tuple i + 32 taken, the first slot holds the group "
             "(count and sum updated), no new group"),
    LoopSpec(
        key="radix_scatter", feeds="partition_cycles_per_tuple", unit="tuple", unit_count=1,
        unit_count_rule="one tuple per iteration", unit_name="tuples",
        functions=r"scatter_partitionsILj1EE", contains=[PREFETCH, STREAM_FLUSH], excludes=[],
        paths=[
            PathSpec(9, forbid=[PREFETCH, STREAM_FLUSH, CALL], label="append"),
            PathSpec(3, require=[PREFETCH], forbid=[STREAM_FLUSH, CALL], label="prefetch, append"),
            PathSpec(3, require=[STREAM_FLUSH], forbid=[PREFETCH, CALL],
                     trips=[(STREAM_FLUSH, 4)], label="append, flush"),
            PathSpec(1, require=[PREFETCH, STREAM_FLUSH], forbid=[CALL],
                     trips=[(STREAM_FLUSH, 4)],
                     label="prefetch, append, flush"),
        ],
        rule="scatter_partitions<1> (2^8 partitions: one-line buffers of 4 tuples, as the "
             "microbenchmark) in for_each_streamed's main loop; of 16 iterations 9 only append, 3 "
             "append with the prefetch, 3 append and flush the full buffer with streaming stores (the "
             "4-slot copy loop run 4 times), 1 does all three (prefetch every 4th tuple, flush every 4th "
             "tuple of a partition, independent); the memcpy flush of a partition's first, shared "
             "line is left out"),
    LoopSpec(
        key="radix_scatter_wide", feeds=None, unit="tuple", unit_count=1,
        unit_count_rule="one tuple per iteration", unit_name="tuples",
        functions=r"scatter_partitionsILj4EE", contains=[PREFETCH, STREAM_FLUSH], excludes=[],
        paths=[
            PathSpec(45, forbid=[PREFETCH, STREAM_FLUSH, CALL], label="append"),
            PathSpec(15, require=[PREFETCH], forbid=[STREAM_FLUSH, CALL], label="prefetch, append"),
            PathSpec(3, require=[STREAM_FLUSH], forbid=[PREFETCH, CALL],
                     trips=[(STREAM_FLUSH, 16)], label="append, flush"),
            PathSpec(1, require=[PREFETCH, STREAM_FLUSH], forbid=[CALL],
                     trips=[(STREAM_FLUSH, 16)],
                     label="prefetch, append, flush"),
        ],
        rule="scatter_partitions<4> (up to 128 partitions: 4-line buffers of 16 tuples, as the radix "
             "join uses them); of 64 iterations 45 append, 15 append with the prefetch, 3 flush (the "
             "copy loop run 16 times), 1 prefetch and flush (flush every 16th tuple of a partition)"),
    LoopSpec(
        key="partition_build", feeds="partition_join_cycles_per_tuple (mean of build and probe)",
        unit="tuple", unit_count=1, unit_count_rule="one tuple per iteration", unit_name="tuples",
        functions=r"loop_cycles15partition_buildE|build_partition_table", contains=[PREFETCH], excludes=[],
        paths=streamed_paths(),
        rule="radix build_partition_table in for_each_streamed's main loop (3 without, 1 with the "
             "prefetch), the first slot empty"),
    LoopSpec(
        key="partition_probe", feeds="partition_join_cycles_per_tuple (mean of build and probe)",
        unit="tuple", unit_count=1, unit_count_rule="one tuple per iteration", unit_name="tuples",
        functions=r"loop_cycles15partition_probeE|probe_partition_table", contains=[PREFETCH], excludes=[],
        paths=streamed_paths(extra_require=[Src("radix_join_steps.hpp", "++matches;")]),
        rule="radix probe_partition_table in for_each_streamed's main loop (3 without, 1 with the "
             "prefetch), the first slot holds the key"),
    LoopSpec(
        key="merge", feeds="merge_cycles_per_tuple", unit="merge step", unit_count=1,
        unit_count_rule="one step (a fact or a dimension tuple passed) per iteration", unit_name="steps",
        functions=r"merge_join", contains=[Src("sort_merge_join_kernel.cpp", "++matches;")], excludes=[],
        paths=[
            PathSpec(2, forbid=[Src("sort_merge_join_kernel.cpp", "++matches;"),
                                Src("sort_merge_join_kernel.cpp", "++j;")], label="fact key below: next fact"),
            PathSpec(2, require=[Src("sort_merge_join_kernel.cpp", "++matches;")], label="match: next fact"),
            PathSpec(1, require=[Src("sort_merge_join_kernel.cpp", "++j;")], label="fact key above: next dimension"),
        ],
        rule="merge_join as the microbenchmark runs it (8192 facts, keys uniform over the 2048 even "
             "dimension keys' range, half of them even): per 5 steps 2 facts below the dimension key, 2 "
             "matches, 1 dimension step"),
    LoopSpec(
        key="sort_partition", feeds="sort_cycles_per_comparison", unit="comparison", unit_count=4,
        unit_count_rule="4 comparisons per round of the partition loop (each scan loop runs twice: "
                        "the expected run at a median pivot)", unit_name="comparisons",
        functions=r"(__introsort_loop|__unguarded_partition).*sort_by_key",
        contains=[Src("stl_algo.h", "while (__comp(__first, __pivot))"),
                  Src("stl_algo.h", "while (__comp(__pivot, __last))")], excludes=[],
        paths=[PathSpec(1, trips=[(Src("stl_algo.h", "while (__comp(__first, __pivot))"), 2),
                                  (Src("stl_algo.h", "while (__comp(__pivot, __last))"), 2)],
                        label="two comparisons each side, one swap")],
        rule="std::sort's __unguarded_partition (inlined into __introsort_loop for sort_by_key's "
             "comparator): one round = the left scan loop twice, the right scan loop twice, the swap; "
             "per comparison = per round / 4"),
    LoopSpec(
        key="select_insertion", feeds="select_cycles_per_value (groups of 16)", unit="value inserted",
        unit_count=1, unit_count_rule="one value inserted per iteration (4 shifts: the mean for 16 "
                                      "random values)", unit_name="values",
        functions=r"twice_median", contains=[Src("aggregation_kernels.cpp", "const std::uint64_t v = run[a];")],
        excludes=[],
        paths=[PathSpec(1, trips=[(Src("aggregation_kernels.cpp",
                                       "for (; b > 0 && run[b - 1] > v; --b) run[b] = run[b - 1];"), 5)],
                        label="4 shifts and the stopping comparison")],
        rule="twice_median's insertion sort (runs of up to 32): one outer iteration with the shift loop "
             "entered 5 times (4 shifts, then the comparison that stops): 16 random values have "
             "16 x 15 / 4 = 60 inversions, 4 per inserted value"),
    LoopSpec(
        key="select_partition", feeds="select_cycles_per_value (groups of 256)", unit="comparison",
        unit_count=4, unit_count_rule="4 comparisons per round, as sort_partition", unit_name="comparisons",
        functions=r"(__introselect|__unguarded_partition)\w*IPm\w*Iter_less_iter",
        contains=[Src("stl_algo.h", "while (__comp(__first, __pivot))"),
                  Src("stl_algo.h", "while (__comp(__pivot, __last))")], excludes=[],
        paths=[PathSpec(1, trips=[(Src("stl_algo.h", "while (__comp(__first, __pivot))"), 2),
                                  (Src("stl_algo.h", "while (__comp(__pivot, __last))"), 2)],
                        label="two comparisons each side, one swap")],
        rule="std::nth_element's __unguarded_partition (inlined into __introselect on uint64 values), "
             "as sort_partition"),
    LoopSpec(
        key="select_min", feeds="select_cycles_per_value (groups of 256)", unit="value", unit_count=1,
        unit_count_rule="one value per iteration", unit_name="values",
        functions=r"twice_median|__min_element",
        contains=[Src("stl_algo.h", "if (__comp(__first, __result))", after="__min_element(")], excludes=[],
        paths=[PathSpec(1, label="no new minimum")],
        rule="twice_median's std::min_element over the upper half (even sizes): the common path, "
             "no new minimum (the shortest path)"),
    LoopSpec(
        key="filter", feeds="filter_cycles_per_cell", unit="cell", unit_count=1,
        unit_count_rule="one cell per iteration (scalar: checked)", unit_name="cells",
        functions=r"subarray_filter",
        contains=[Src("subarray_kernel.cpp", "held += v < threshold ? 1 : 0;")], excludes=[],
        paths=[PathSpec(1, forbid=[LOCK, CALL], label="no claim")],
        rule="subarray_filter's cell loop: the range test and the branch-free store into the claim "
             "block; the claim (every 64 selected cells: the block's sum, one lock xadd, a 512-byte "
             "memcpy) is left out, 1 in 640 cells at the microbenchmark's 10 %"),
    LoopSpec(
        key="consumer_sum", feeds="cycles_per_element", unit="element", unit_count=16,
        unit_count_rule="16 elements per iteration (the source's explicit 8 x 2-lane vectors; checked "
                        "against the bytes the loop loads)", unit_name="elements",
        functions=r"sum_elements", contains=[Src("shuffle_kernels.cpp", "a += v[0];")], excludes=[],
        paths=[PathSpec(1, label="straight line")],
        rule="sum_elements' main loop (two lines per iteration into eight 2-lane sums)",
        check_loaded_elements=16),
]


# ── Assembly parsing ──────────────────────────────────────────────────────────────────────────

LOC_RE = re.compile(r"^\s*\.loc\s+\d+\s+(\d+)\s+\d+.*#\s+(.+):(\d+):(\d+)\s*$")
FUNC_RE = re.compile(r"^([^\s.#][^\s:]*|\"[^\"]+\"):\s*#\s*@")
LABEL_RE = re.compile(r"^\.(LBB\d+_\d+):(.*)$")
BB_RE = re.compile(r"^#\s*%(bb\.\d+):(.*)$")
HEADER_RE = re.compile(r"=>\s*This (?:Inner )?Loop Header: Depth=(\d+)")
IN_LOOP_RE = re.compile(r"in Loop: Header=(BB\d+_\d+) Depth=(\d+)")
PARENT_RE = re.compile(r"Parent Loop (BB\d+_\d+) Depth=(\d+)")


@dataclass
class Instr:
    text: str
    file: str
    line: int


@dataclass
class Block:
    name: str
    instrs: list = field(default_factory=list)
    header_depth: int | None = None  # set when this block heads a loop
    in_loop: str | None = None  # innermost loop header (BBx_y) for a non-header block
    parents: list = field(default_factory=list)  # for a header: its enclosing headers, outermost first


@dataclass
class Function:
    symbol: str
    blocks: list = field(default_factory=list)


def normalise(text: str) -> str:
    text = text.split("#", 1)[0].strip()
    return re.sub(r"\s+", " ", text)


def parse_functions(asm: str) -> list:
    functions = []
    current = None
    block = None
    loc = ("", 0)
    pending_parents = []
    for raw in asm.splitlines():
        m = FUNC_RE.match(raw)
        if m:
            current = Function(symbol=m.group(1).strip('"'))
            functions.append(current)
            block = Block(name="entry")
            current.blocks.append(block)
            loc = ("", 0)
            continue
        if current is None:
            continue
        if raw.startswith(".Lfunc_end"):
            current = None
            continue
        m = LOC_RE.match(raw)
        if m:
            loc = (m.group(2), int(m.group(3)))
            continue
        m = LABEL_RE.match(raw) or BB_RE.match(raw)
        if m:
            name = m.group(1)
            name = name[1:] if name.startswith("LBB") else name  # LBB4_8 -> BB4_8 as in the comments
            block = Block(name=name)
            current.blocks.append(block)
            pending_parents = []
            comment = m.group(2)
            _loop_comment(block, comment, pending_parents)
            continue
        stripped = raw.strip()
        if stripped.startswith("#"):
            if block is not None:
                _loop_comment(block, stripped, pending_parents)
            continue
        if not stripped or stripped.startswith(".") or stripped.endswith(":"):
            continue
        text = normalise(stripped)
        if text:
            block.instrs.append(Instr(text=text, file=loc[0], line=loc[1]))
    return functions


def _loop_comment(block: Block, comment: str, pending_parents: list) -> None:
    for m in PARENT_RE.finditer(comment):
        pending_parents.append((int(m.group(2)), m.group(1)))
    m = HEADER_RE.search(comment)
    if m:
        block.header_depth = int(m.group(1))
        block.parents = [h for _, h in sorted(pending_parents)]
    m = IN_LOOP_RE.search(comment)
    if m and block.header_depth is None:
        block.in_loop = m.group(1)


JUMP_RE = re.compile(r"^(j[a-z]+)\s+\.?(\S+)$")


class Cfg:
    """One function's blocks, their successors and loops."""

    def __init__(self, fn: Function):
        self.fn = fn
        self.blocks = {b.name: b for b in fn.blocks}
        self.order = [b.name for b in fn.blocks]
        self.loops = {}  # header -> (depth, parent header or None)
        for b in fn.blocks:
            if b.header_depth is not None:
                parent = b.parents[-1] if b.parents else None
                self.loops[b.name] = (b.header_depth, parent)
        self.edges = {}
        for i, b in enumerate(fn.blocks):
            edges = []  # (successor, number of the block's instructions executed)
            ends = False
            for k, ins in enumerate(b.instrs):
                m = JUMP_RE.match(ins.text)
                if not m:
                    if ins.text.startswith(("ret", "ud2")):
                        ends = True
                    continue
                target = m.group(2)
                target = target[1:] if target.startswith("LBB") else target
                if target in self.blocks:
                    edges.append((target, k + 1))
                else:
                    edges.append((None, k + 1))  # tail call or a jump out of the function
                if m.group(1) == "jmp":
                    ends = True
                    break
            if not ends and i + 1 < len(fn.blocks):
                edges.append((fn.blocks[i + 1].name, len(b.instrs)))
            self.edges[b.name] = edges

    def innermost(self, name: str):
        b = self.blocks[name]
        if b.header_depth is not None:
            return name
        return b.in_loop

    def chain(self, name: str) -> list:
        """Loop headers enclosing block `name`, innermost first."""
        out = []
        h = self.innermost(name)
        while h is not None:
            out.append(h)
            h = self.loops[h][1]
        return out

    def members(self, header: str) -> list:
        return [n for n in self.order if header in self.chain(n)]


# ── Items and sources ─────────────────────────────────────────────────────────────────────────

class Sources:
    """Resolves Src items to (path, line) through the files the line table names."""

    def __init__(self, root: str):
        self.root = root
        self.cache = {}

    def resolve(self, item: Src, files: set) -> tuple:
        candidates = sorted(f for f in files if f.endswith("/" + item.file) or f == item.file)
        if not candidates:
            raise LookupError(f"no line-table file ends in {item.file}")
        path = candidates[0]
        key = (path, item.text, item.after)
        if key not in self.cache:
            full = path if os.path.isabs(path) else os.path.join(self.root, path)
            with open(full, encoding="utf-8") as f:
                lines = f.read().splitlines()
            start = 0
            if item.after is not None:
                anchors = [i for i, l in enumerate(lines) if item.after in l]
                if not anchors:
                    raise LookupError(f"{path}: no line contains '{item.after}'")
                start = anchors[0]
            hits = [i for i in range(start, len(lines)) if item.text in lines[i]]
            if not hits:
                raise LookupError(f"{path}: no line contains '{item.text}'")
            if item.after is None and len(hits) > 1:
                raise LookupError(f"{path}: '{item.text}' is on {len(hits)} lines; give an anchor")
            self.cache[key] = (path, hits[0] + 1)
        return self.cache[key]


def reads_memory(text: str) -> bool:
    parts = text.split(" ", 1)
    if len(parts) < 2 or "(" not in parts[1]:
        return False
    mnemonic = parts[0]
    if mnemonic.startswith(("lea", "prefetch", "nop")):
        return False
    operands = re.split(r",\s*(?![^()]*\))", parts[1])
    if any("(" in op for op in operands[:-1]):
        return True
    pure_store = re.match(r"^(v?mov|set|movnt|vmovnt)", mnemonic)
    return "(" in operands[-1] and not pure_store


class Matcher:
    def __init__(self, cfg: Cfg, sources: Sources):
        self.cfg = cfg
        self.files = {i.file for b in cfg.fn.blocks for i in b.instrs if i.file}
        self.sources = sources

    def matches(self, item, ins: Instr) -> bool:
        if isinstance(item, Insn):
            return re.search(item.pattern, ins.text) is not None
        path, line = self.sources.resolve(item, self.files)
        if ins.file != path or ins.line != line:
            return False
        return reads_memory(ins.text) if item.load else True

    def block_has(self, item, name: str) -> bool:
        return any(self.matches(item, i) for i in self.cfg.blocks[name].instrs)

    def loop_has(self, item, header: str) -> bool:
        return any(self.block_has(item, n) for n in self.cfg.members(header))


# ── Loop selection and the path walk ──────────────────────────────────────────────────────────

class NoLoop(RuntimeError):
    pass


def select_loop(functions: list, spec: LoopSpec, sources: Sources):
    found = []
    for fn in functions:
        if not re.search(spec.functions, fn.symbol):
            continue
        cfg = Cfg(fn)
        matcher = Matcher(cfg, sources)
        fits = []
        for header in cfg.loops:
            try:
                ok = all(matcher.loop_has(i, header) for i in spec.contains) and \
                    not any(matcher.loop_has(i, header) for i in spec.excludes)
            except LookupError:
                ok = False
            if ok:
                fits.append(header)
        # innermost: no other fitting loop inside it
        for h in fits:
            if not any(o != h and h in cfg.chain(o) for o in fits):
                found.append((fn, cfg, matcher, h))
    if not found:
        raise NoLoop(f"{spec.key}: no loop fits")
    if len(found) != 1:
        names = [(f.symbol[:80], h) for f, _, _, h in found]
        raise RuntimeError(f"{spec.key}: {len(found)} loops fit (want 1): {names}")
    return found[0]


def walk(cfg: Cfg, matcher: Matcher, header: str, path: PathSpec, limit: int = 400000):
    """The shortest walk (in instructions) from the loop header back to it that satisfies the path's
    requirements: inner loops run once unless `trips` says otherwise; ties: the first in the
    asm's successor order."""
    members = set(cfg.members(header))
    trips = {}
    for item, n in path.trips:
        holders = [h for h in cfg.loops if h != header and header in cfg.chain(h) and any(
            matcher.block_has(item, m) for m in cfg.members(h) if cfg.innermost(m) == h)]
        if not holders:
            raise RuntimeError(f"no inner loop holds {item.describe()}")
        deepest = max(holders, key=lambda h: cfg.loops[h][0])
        trips[deepest] = n

    def cap(name: str) -> int:
        c = 1
        for h in cfg.chain(name):
            if h == header:
                break
            c *= trips.get(h, 1)
        return c

    inner_headers = [h for h in cfg.loops if h != header and h in members]
    best = [None, None]
    steps = [0]
    visits = {}

    def satisfied(instrs: list) -> bool:
        for item in path.require:
            if not any(matcher.matches(item, i) for i in instrs):
                return False
        for item in path.forbid:
            if any(matcher.matches(item, i) for i in instrs):
                return False
        for h in inner_headers:
            v = visits.get(h, 0)
            if v and v != cap(h):
                return False
        return True

    def dfs(name: str, instrs: list, trail: list) -> None:
        steps[0] += 1
        if steps[0] > limit:
            raise RuntimeError("path search: step limit")
        if best[0] is not None and len(instrs) > best[0]:
            return
        for succ, count in cfg.edges[name]:
            taken = instrs + cfg.blocks[name].instrs[:count]
            if succ == header:
                if satisfied(taken) and (best[0] is None or len(taken) < best[0]):
                    best[0], best[1] = len(taken), (trail + [name], taken)
                continue
            if succ is None or succ not in members:
                continue
            if visits.get(succ, 0) >= cap(succ):
                continue
            if any(matcher.matches(f, i) for f in path.forbid for i in cfg.blocks[name].instrs[:count]):
                continue
            visits[succ] = visits.get(succ, 0) + 1
            dfs(succ, taken, trail + [name])
            visits[succ] -= 1

    visits[header] = 1
    dfs(header, [], [])
    if best[1] is None:
        raise RuntimeError(f"no path around {header} satisfies '{path.label}'")
    return best[1]


# ── llvm-mca ──────────────────────────────────────────────────────────────────────────────────

def run(cmd: list, cwd: str = ROOT, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, input=stdin, capture_output=True, text=True)


def mca(cpu: str, text: str, iterations: int) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
        f.write(text)
        name = f.name
    try:
        p = run([MCA, f"-mtriple={TRIPLE}", f"-mcpu={cpu}", f"-iterations={iterations}", name])
    finally:
        os.unlink(name)
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["llvm-mca failed"])[-1].replace(name, "<input>")}
    out = {}
    for key, pattern in [("iterations", r"^Iterations:\s+(\d+)"), ("instructions", r"^Instructions:\s+(\d+)"),
                         ("total_cycles", r"^Total Cycles:\s+(\d+)"), ("total_uops", r"^Total uOps:\s+(\d+)"),
                         ("block_rthroughput", r"^Block RThroughput:\s+([\d.]+)"),
                         ("dispatch_width", r"^Dispatch Width:\s+(\d+)")]:
        m = re.search(pattern, p.stdout, re.M)
        out[key] = float(m.group(1)) if m else None
    resources = re.search(r"^Resources:\n((?:\[\d+\].*\n)+)", p.stdout, re.M)
    out["resources"] = re.findall(r"-\s+(\S+)", resources.group(1)) if resources else []
    return out


def scheduling_model(cpu: str) -> dict:
    probe = "addq %rax, %rbx\nimulq %rcx, %rdx\nmovq (%rsi), %rdi\n"
    r = mca(cpu, probe, 1)
    if "error" in r:
        return {"model": None, "borrowed": None, "evidence": f"llvm-mca-14: {r['error']}"}
    model = None
    for prefix in sorted(MODEL_PREFIXES, key=len, reverse=True):
        if all(n.startswith(prefix) for n in r["resources"]) and r["resources"]:
            model = prefix
            break
    if model is None:
        return {"model": None, "borrowed": None,
                "evidence": f"unrecognised resource names {r['resources'][:4]}"}
    name, native = MODEL_PREFIXES[model]
    return {"model": name, "model_cpu": native, "borrowed": native != cpu,
            "evidence": f"llvm-mca-14 -mcpu={cpu} lists the resources {', '.join(r['resources'][:3])}, ... "
                        f"({name}'s)"}


# ── Compilation ───────────────────────────────────────────────────────────────────────────────

def compile_flags(compile_commands: str | None) -> tuple:
    """-I/-isystem/-std flags per project source, from the compile database (paths made relative
    to this tree) or the defaults."""
    if compile_commands and os.path.exists(compile_commands):
        with open(compile_commands, encoding="utf-8") as f:
            db = json.load(f)
        flags = {}
        for entry in db:
            args = shlex.split(entry["command"]) if "command" in entry else entry["arguments"]
            src_root = None
            for marker in ("/validate/src/",):
                if marker in entry["file"]:
                    src_root = entry["file"].split(marker)[0]
            if src_root is None:
                continue
            rel = os.path.relpath(entry["file"], src_root)
            keep = []
            i = 0
            while i < len(args):
                a = args[i]
                if a in ("-isystem", "-I") and i + 1 < len(args):
                    keep += [a, _relative(args[i + 1], src_root)]
                    i += 2
                    continue
                if a.startswith("-I"):
                    keep.append("-I" + _relative(a[2:], src_root))
                elif a.startswith("-std="):
                    keep.append(a)
                i += 1
            flags[rel] = keep
        return flags, compile_commands
    return None, "defaults (no compile database)"


def _relative(path: str, src_root: str) -> str:
    if path.startswith(src_root + "/"):
        return os.path.relpath(path, src_root)
    return path


def unit_flags(unit: str, db_flags) -> list:
    source, flag_source, extra = UNITS[unit]
    if db_flags is not None and flag_source in db_flags:
        base = db_flags[flag_source]
    else:
        base = DEFAULT_INCLUDE_FLAGS + [DEFAULT_STD]
    return base + extra


def compile_unit(unit: str, march: str, db_flags, debug: bool, vectorize: bool = False) -> str:
    source = UNITS[unit][0]
    opt = [f for f in OPT_FLAGS if not (vectorize and f == "-fno-vectorize")]
    cmd = [CLANG] + unit_flags(unit, db_flags) + opt + [f"-march={march}", "-S", "-o", "-", source]
    if debug:
        cmd.insert(-4, LINE_TABLE_FLAG)
    p = run(cmd)
    if p.returncode != 0:
        raise RuntimeError(f"clang++-14 failed on {source} -march={march}: {p.stderr[-2000:]}")
    return p.stdout


def code_lines(asm: str) -> list:
    """The instructions and labels of an assembly text, without directives and comments: what must
    be the same with and without the line table."""
    out = []
    for raw in asm.splitlines():
        s = raw.strip()
        if not s or s.startswith("#") or (s.startswith(".") and not LABEL_RE.match(s)):
            continue
        if s.startswith(".Ltmp") or s.startswith(".Lfunc_begin"):
            continue
        out.append(normalise(s))
    return out


# ── Per-loop analysis ─────────────────────────────────────────────────────────────────────────

REG_WIDTH = {"xmm": 16, "ymm": 32, "zmm": 64}


def vector_summary(instrs: list) -> dict:
    packed = sorted({i.text.split(" ", 1)[0] for i in instrs
                     if re.search(r"%[xyz]mm", i.text) and not re.search(r"(s[sd]|movq|movd)$", i.text.split(" ", 1)[0])
                     and not i.text.startswith(("vucomi", "ucomi", "vcomi", "comi"))})
    widest = max((REG_WIDTH[m] * 8 for i in instrs for m in re.findall(r"%([xyz]mm)", i.text)), default=0)
    loaded = 0
    for i in instrs:
        if reads_memory(i.text):
            regs = re.findall(r"%([xyz]mm)", i.text)
            if regs:
                loaded += max(REG_WIDTH[r] for r in regs)
            elif re.search(r"q\b", i.text.split(" ", 1)[0]) or "%r" in i.text:
                loaded += 8
    return {"packed_vector_mnemonics": packed, "widest_vector_register_bits": widest,
            "bytes_loaded_per_iteration": loaded}


def analyse_loop(spec: LoopSpec, functions: list, sources: Sources, cpu: str, has_model: bool,
                 iterations: int) -> dict:
    fn, cfg, matcher, header = select_loop(functions, spec, sources)
    trace = []
    described = []
    for path in spec.paths:
        blocks, instrs = walk(cfg, matcher, header, path)
        described.append({"label": path.label, "weight": path.weight, "blocks": " ".join(blocks),
                          "instructions": len(instrs)})
        for _ in range(path.weight):
            trace.extend(instrs)
    weight = sum(p.weight for p in spec.paths)
    vectors = vector_summary(trace)
    units = spec.unit_count
    if spec.lanes_from is not None:
        regs = [r for i in trace if re.search(spec.lanes_from, i.text) for r in re.findall(r"%([xyz]mm)", i.text)]
        if not regs:
            raise RuntimeError(f"{spec.key}: no /{spec.lanes_from}/ with a vector register")
        units = REG_WIDTH[regs[0]] // 8
    entry = {
        "function": fn.symbol,
        "loop_header": header,
        "loop_depth": cfg.loops[header][0],
        "paths": described,
        "iterations_in_trace": weight,
        "instructions_per_iteration": round(len(trace) / weight, 4),
        "tuples_per_iteration": units,
        "unit": spec.unit,
        "tuples_per_iteration_rule": spec.unit_count_rule,
        "vector": {k: v for k, v in vectors.items() if k != "bytes_loaded_per_iteration"},
    }
    if spec.check_loaded_elements is not None:
        elements = vectors["bytes_loaded_per_iteration"] / weight / 8
        if abs(elements - spec.check_loaded_elements) > 1e-9:
            raise RuntimeError(f"{spec.key}: the loop loads {elements} elements per iteration, "
                               f"expected {spec.check_loaded_elements}")
        entry["vector"]["elements_loaded_per_iteration"] = elements  # the check passed
    if not has_model:
        entry.update({"cycles_per_iteration": None, "block_rthroughput": None, "uops_per_iteration": None,
                      "cycles_per_tuple": None})
        return entry
    text = "\n".join(i.text for i in trace) + "\n"
    r = mca(cpu, text, iterations)
    if "error" in r:
        raise RuntimeError(f"{spec.key} -mcpu={cpu}: {r['error']}")
    per = r["iterations"] * weight
    cycles = r["total_cycles"] / per
    entry.update({
        "cycles_per_iteration": round(cycles, 4),
        "block_rthroughput": round(r["block_rthroughput"] / weight, 4),
        "uops_per_iteration": round(r["total_uops"] / per, 4),
        "cycles_per_tuple": round(cycles / units, 4),
        "mca": {"iterations": int(r["iterations"]), "trace_instructions": len(trace),
                "total_cycles": int(r["total_cycles"]), "total_uops": int(r["total_uops"]),
                "block_rthroughput_of_trace": r["block_rthroughput"],
                "dispatch_width": int(r["dispatch_width"])},
    })
    return entry


# ── Derived model costs ───────────────────────────────────────────────────────────────────────

def derived_costs(loops: dict) -> dict:
    """The operator costs as cost_microbenchmarks.hpp derives them, with f x (measured ns) replaced
    by the loop's in-core cycles (the private-cache hit latency is inside llvm-mca's figure, so no
    separate hit term). A cost whose loops failed is left out."""
    def c(key):
        return loops.get(key, {}).get("cycles_per_tuple")

    out = {}
    scan = c("histogram")

    def put(name, inputs, compute, formula, floor=True):
        if any(c(k) is None for k in inputs):
            out[name] = {"value": None, "derivation": formula + " (a loop failed)"}
            return
        value = compute()
        entry = {"value": round(value, 4), "derivation": formula}
        if floor and value < MINIMUM_CYCLES:
            entry = {"value": MINIMUM_CYCLES,
                     "derivation": f"{formula} = {value:.4f}, raised to kMinimumCycles {MINIMUM_CYCLES}"}
        out[name] = entry

    steps_per_fact = (MERGE_FACTS + MERGE_DIMENSIONS) / MERGE_FACTS
    put("scan_cycles_per_tuple", ["histogram"], lambda: scan, "histogram")
    put("hash_cycles_per_tuple", ["count_plain", "histogram"], lambda: c("count_plain") - scan,
        "count_plain - scan")
    put("atomic_update_cycles", ["count_atomic", "count_plain"], lambda: c("count_atomic") - c("count_plain"),
        "count_atomic - count_plain (the model's atomic_update_ns x f; llvm-mca does not model the "
        "locked instruction's drain of the store buffer)", floor=False)
    put("join_cycles_per_tuple", ["join_build", "join_probe", "histogram"],
        lambda: (c("join_build") + c("join_probe")) / 2 - scan, "(join_build + join_probe) / 2 - scan")
    put("group_cycles_per_tuple", ["group_update", "histogram"], lambda: c("group_update") - scan,
        "group_update - scan")
    put("partition_cycles_per_tuple", ["radix_scatter"], lambda: c("radix_scatter"), "radix_scatter")
    put("partition_join_cycles_per_tuple", ["partition_build", "partition_probe", "histogram"],
        lambda: (c("partition_build") + c("partition_probe")) / 2 - scan,
        "(partition_build + partition_probe) / 2 - scan")
    put("merge_cycles_per_tuple", ["merge", "histogram"],
        lambda: (c("merge") * steps_per_fact * MERGE_FACTS - MERGE_DIMENSIONS * scan) / MERGE_FACTS,
        f"(merge step x {steps_per_fact} steps per fact x {MERGE_FACTS} - {MERGE_DIMENSIONS} x scan) / "
        f"{MERGE_FACTS}")
    put("sort_cycles_per_comparison", ["sort_partition"], lambda: c("sort_partition"),
        "sort_partition: per comparison of the partition loop (the measured cost's unit is the whole "
        "sort over m log2 m, mispredictions included: not the same thing)", floor=False)
    select_inputs = ["select_insertion", "select_partition", "select_min"]
    put("select_cycles_per_value", select_inputs,
        lambda: math.sqrt((c("select_insertion") * 15 / 16) *
                          (SELECT_MEDIAN_OF_THREE_COMPARISONS * c("select_partition") +
                           127 / 256 * c("select_min"))),
        f"geometric mean of select_16 = select_insertion x 15/16 (15 insertions per 16 values) and "
        f"select_256 = {SELECT_MEDIAN_OF_THREE_COMPARISONS} x select_partition (expected comparisons per "
        f"value of a median-of-3 selection of the median) + 127/256 x select_min (min_element over the "
        f"upper half); the per-group overhead (median_select's slot loop, the call) is left out",
        floor=False)
    if all(c(k) is not None for k in select_inputs):
        out["select_cycles_per_value"]["select_16"] = round(c("select_insertion") * 15 / 16, 4)
        out["select_cycles_per_value"]["select_256"] = round(
            SELECT_MEDIAN_OF_THREE_COMPARISONS * c("select_partition") + 127 / 256 * c("select_min"), 4)
    put("filter_cycles_per_cell", ["filter"], lambda: c("filter"), "filter (claims left out)", floor=False)
    put("cycles_per_element", ["consumer_sum"], lambda: c("consumer_sum"), "consumer_sum", floor=False)
    out["index_join"] = {
        "inner_level": c("index_level"), "leaf": c("index_leaf"),
        "derivation": "per tuple of an index of depth d: (d - 1) x index_level + leaf (the per-batch "
                      "overhead, once per 32 tuples and level, left out); as the model's join cost: "
                      "minus scan"}
    return out


def index_depth(llc_bytes: float) -> int:
    """index_shape's depth for the cost microbenchmark's index of LLC / 8 bytes
    (cost_operator_microbenchmarks.cpp)."""
    keys = int(llc_bytes / 8.0 / 64 * 8.0 * 7.0 / 8.0)
    level = (keys + 7) // 8
    depth = 1
    while level != 1:
        level = (level + 7) // 8
        depth += 1
    return depth


def machines(results: dict) -> list:
    out = []
    for name, arch in MACHINES:
        path = os.path.join(ROOT, "topologies", name)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            topo = json.load(f)
        node = next(n for n in topo["nodes"] if n.get("cores", 0) > 0)
        caches = sorted(node.get("caches", []), key=lambda c: c["level"])
        llc = float(caches[-1]["size_bytes"]) if caches else 0.0
        d = index_depth(llc) if llc > 0 else None
        loops = results[arch]["loops"]
        lvl, leaf = loops["index_level"].get("cycles_per_tuple"), loops["index_leaf"].get("cycles_per_tuple")
        per = round((d - 1) * lvl + leaf, 4) if d and lvl is not None and leaf is not None else None
        out.append({"topology": name, "microarchitecture": arch, "frequency_ghz": node.get("frequency_ghz"),
                    "llc_bytes": int(llc), "index_depth": d, "index_probe_cycles_per_tuple": per})
    return out


# ── Main ──────────────────────────────────────────────────────────────────────────────────────

def tool_version(cmd: list) -> str:
    p = run(cmd)
    text = (p.stdout + p.stderr).strip().splitlines()
    return next((l.strip() for l in text if "version" in l.lower()), text[0] if text else "")


def sources_digest() -> str:
    h = hashlib.sha256()
    files = sorted({u[0] for u in UNITS.values()} | {
        "validate/src/kernels/radix_join_steps.hpp",
        "validate/include/numatwin/validate/kernels/aggregation_kernels.hpp",
        "validate/include/numatwin/validate/kernels/shared_hash_table.hpp",
        "validate/include/numatwin/validate/kernels/shuffle_kernels.hpp",
        "validate/include/numatwin/validate/kernels/index_join_kernel.hpp",
        "validate/include/numatwin/validate/kernels/subarray_kernel.hpp",
        "validate/include/numatwin/validate/kernels/hash_join_kernels.hpp",
        "validate/include/numatwin/validate/kernels/sort_merge_join_kernel.hpp",
        "validate/include/numatwin/validate/kernels/data_generator.hpp"})
    for rel in files:
        with open(os.path.join(ROOT, rel), "rb") as f:
            h.update(rel.encode() + b"\0" + f.read() + b"\0")
    return h.hexdigest()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=OUTPUT, help="output JSON, relative to the repository root")
    ap.add_argument("--compile-commands", default=DEFAULT_COMPILE_COMMANDS,
                    help="compile database whose -I/-isystem/-std flags to use (else built-in ones)")
    ap.add_argument("--iterations", type=int, default=ITERATIONS)
    ap.add_argument("--date", default=datetime.date.today().isoformat())
    ap.add_argument("--only", nargs="*", help="microarchitecture keys to run (default: all)")
    ap.add_argument("--keep-asm", help="directory to write each unit's assembly to")
    args = ap.parse_args()

    db_flags, flag_origin = compile_flags(args.compile_commands)
    sources = Sources(ROOT)
    results = {}
    failures = []
    for key, march, cpu, machines_text in MICROARCHITECTURES:
        if args.only and key not in args.only:
            continue
        print(f"[{key}] -march={march} -mcpu={cpu}", file=sys.stderr)
        model = scheduling_model(cpu)
        has_model = model["model"] is not None
        functions = {"scalar": [], "vectorized": []}
        neutral = True
        builds = [(u, False) for u in UNITS] + [(u, True) for u in VECTORIZED_UNITS]
        for unit, vectorize in builds:
            asm = compile_unit(unit, march, db_flags, debug=True, vectorize=vectorize)
            plain = compile_unit(unit, march, db_flags, debug=False, vectorize=vectorize)
            if code_lines(asm) != code_lines(plain):
                neutral = False
            if args.keep_asm:
                os.makedirs(args.keep_asm, exist_ok=True)
                tag = ".vectorized" if vectorize else ""
                with open(os.path.join(args.keep_asm, f"{unit}{tag}.{key}.s"), "w", encoding="utf-8") as f:
                    f.write(asm)
            functions["vectorized" if vectorize else "scalar"].extend(parse_functions(asm))
        if not neutral:
            raise RuntimeError(f"-march={march}: {LINE_TABLE_FLAG} changed the code")
        loops = {}
        for spec in LOOPS:
            try:
                entry = analyse_loop(spec, functions[spec.variant], sources, cpu, has_model, args.iterations)
            except NoLoop as e:
                if spec.variant != "vectorized":
                    failures.append(f"{key}/{spec.key}: {e}")
                    entry = {"error": str(e)}
                else:
                    entry = {"absent": f"clang++-14 -O2 -march={march} does not vectorise this loop"}
            except (RuntimeError, LookupError) as e:
                failures.append(f"{key}/{spec.key}: {e}")
                entry = {"error": str(e)}
            entry = {"feeds": spec.feeds, "rule": spec.rule, **entry}
            if spec.notes:
                entry["notes"] = spec.notes
            loops[spec.key] = entry
        results[key] = {
            "march": march, "mcpu": cpu, "machines": machines_text,
            "scheduling_model": model, "line_table_neutral": neutral,
            "loops": loops, "model_costs": derived_costs(loops) if has_model else {},
        }

    doc = {
        "what": "in-core cycles per iteration of the database kernels' inner loops (llvm-mca-14 on the "
                "clang++-14 code of validate/src), per microarchitecture; branch mispredictions and cache "
                "misses are not in them. tools/loop-cycles/README.md explains.",
        "provenance": {
            "date": args.date,
            "command": "python3 tools/loop-cycles/derive.py",
            "clang": tool_version([CLANG, "--version"]),
            "llvm_mca": tool_version([MCA, "--version"]),
            "compile_flags": {u: " ".join([CLANG] + unit_flags(u, db_flags) + OPT_FLAGS +
                                          ["-march=<march>", LINE_TABLE_FLAG, "-S", UNITS[u][0]])
                              for u in UNITS},
            "include_flags_as": {u: UNITS[u][1] for u in UNITS},
            "vectorized_variant": {u: "the same without -fno-vectorize (index_leaf_vectorised only)"
                                   for u in VECTORIZED_UNITS},
            "include_flags_from": flag_origin,
            "mca_flags": [f"-mtriple={TRIPLE}", "-mcpu=<mcpu>", f"-iterations={args.iterations}"],
            "sources_sha256": sources_digest(),
            "line_table_check": f"each unit compiled with and without {LINE_TABLE_FLAG}: same instructions",
        },
        "microarchitectures": results,
        "machines": machines(results) if not args.only else [],
        "failures": failures,
    }
    out = os.path.join(ROOT, args.out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"wrote {args.out}; {len(failures)} failures", file=sys.stderr)
    for line in failures:
        print("  " + line, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
