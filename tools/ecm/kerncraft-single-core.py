#!/usr/bin/env python3
"""One core streaming from memory: four compositions against kerncraft's measured figures.

Usage: tools/ecm/kerncraft-single-core.py KERNCRAFT_YML --microarchitecture KEY
           --miss-buffers M --latency-ns L [--latency-source TEXT]

Reads the machine file's clock, its L2 and L3 upstream throughputs with their duplex, and its
measured MEM series (likwid-bench, threads per core 1): the one-core `load` and `copy` figures
and the full-socket `load` figure (ECM's memory bandwidth). Loads and stores per cycle come from
topologies/cores/data-paths.json (KEY). likwid's kernels use AVX-512 (64-byte) accesses and count
explicit bytes: a copy's figure is twice its payload (numatwin's copy rate x reads x and writes
x). Prints, per kernel, the payload rate (GB/s) that each composition predicts and its error:
  little  Little's law alone: M lines in flight over L (bandwidth_model.hpp), two misses per
          copied line;
  sum     Little's law with the in-cache serial time added: 1 / (t_serial + 1 / little);
  ecm     ECM alone: 1 / (t_serial + t_mem), t_mem = controller coefficient / full-socket
          bandwidth (a copy's write costs 2: read for ownership and write-back);
  least   min(little, ecm): what model/ecm.hpp does.
M and L are inputs: say where they come from (--latency-source); nothing here is fitted.
"""
import argparse
import json
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
LINE = 64.0
ACCESS = 64.0  # likwid's AVX-512 kernels


def gbps(text):
    m = re.match(r"\s*([0-9.]+)\s*GB/s", str(text))
    if not m:
        sys.exit(f"not a bandwidth: {text!r}")
    return float(m.group(1))


def level_rate(level):
    rate, duplex = level["upstream throughput"]
    m = re.match(r"\s*([0-9.]+)\s*B/cy", str(rate))
    if not m:
        sys.exit(f"level {level['level']}: no B/cy throughput ({rate!r})")
    return float(m.group(1)), duplex.startswith("full")


def cycles(rate, full, lines_in, lines_out):
    return (max(lines_in, lines_out) if full else lines_in + lines_out) / rate


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--microarchitecture", required=True)
    ap.add_argument("--miss-buffers", type=float, required=True)
    ap.add_argument("--latency-ns", type=float, required=True)
    ap.add_argument("--latency-source", default="(not given)")
    a = ap.parse_args()
    doc = yaml.safe_load(open(a.file))
    path = json.loads((ROOT / "topologies/cores/data-paths.json").read_text())["microarchitectures"][a.microarchitecture]
    hz = float(str(doc["clock"]).split()[0]) * 1e9
    levels = {lv["level"]: lv for lv in doc["memory hierarchy"]}
    l2_rate, l2_full = level_rate(levels["L2"])
    l3_rate, l3_full = level_rate(levels["L3"])
    mem = doc["benchmarks"]["measurements"]["MEM"][1]
    measured = {k: gbps(v[0]) for k, v in mem["results"].items()}
    socket_load = gbps(mem["results"]["load"][-1])
    print(f"{pathlib.Path(a.file).name}: {hz / 1e9:.2f} GHz, L2->L1 {l2_rate:g} B/cy {'full' if l2_full else 'half'}, "
          f"L3->L2 {l3_rate:g} B/cy {'full' if l3_full else 'half'}, {path['loads_per_cycle']} loads and "
          f"{path['stores_per_cycle']} stores per cycle ({a.microarchitecture}), full-socket load {socket_load:g} GB/s")
    print(f"Little's law: M = {a.miss_buffers:g}, L = {a.latency_ns:g} ns ({a.latency_source})")
    print(f"{'kernel':8} {'measured':>9} {'little':>14} {'sum':>14} {'ecm':>14} {'least':>14}   (payload GB/s, error)")
    for kernel, reads, writes in (("load", 1, 0), ("copy", 1, 1)):
        lines_in, lines_out = reads + writes, writes
        l1 = (reads / (ACCESS * path["loads_per_cycle"]) + writes / (ACCESS * path["stores_per_cycle"])) * LINE
        serial_cycles = l1 + cycles(l2_rate, l2_full, lines_in, lines_out) * LINE + cycles(l3_rate, l3_full, lines_in, lines_out) * LINE
        t_serial = serial_cycles / hz / LINE  # s per payload byte
        misses = reads + writes
        little = a.miss_buffers * LINE / (misses * a.latency_ns * 1e-9)
        t_mem = (reads + 2 * writes) / (socket_load * 1e9)
        preds = {"little": little, "sum": 1 / (t_serial + 1 / little), "ecm": 1 / (t_serial + t_mem)}
        preds["least"] = min(preds["little"], preds["ecm"])
        payload = measured[kernel] / (reads + writes)
        cells = " ".join(f"{p / 1e9:7.2f} {100 * (p / 1e9 / payload - 1):+5.0f}%" for p in preds.values())
        print(f"{kernel:8} {payload:9.2f} {cells}   (serial {serial_cycles:.2f} cy per line)")


if __name__ == "__main__":
    main()
