#!/usr/bin/env python3
"""Checks topologies/schema/topology.schema.json against the shipped topology files.

1. The schema itself is a valid JSON Schema (draft 2020-12).
2. Every shipped topology file (topologies/*.json) is accepted, its name equals the file name,
   and every provenance entry that is a JSON pointer (starts with "/", "*" = every element)
   addresses at least one field of the file.
3. A valid inline document is accepted, and deliberately broken variants of it (unknown key,
   missing field, zero bandwidth, router with cores, directory without fraction, ...) are
   rejected, so the schema is known to reject what docs/topology-format.md forbids.

Usage: validate_schema.py --schema FILE --topologies DIR
Exit status 0 when every check passes, 1 otherwise (each failure is printed).
"""
import argparse
import copy
import json
import pathlib
import sys

try:
    import jsonschema
except ImportError:  # a missing dependency is a failure, not a silent skip
    print("validate_schema.py: python3-jsonschema is required (import jsonschema failed)", file=sys.stderr)
    sys.exit(1)


def good_document():
    """A small valid document exercising both link forms, a router, routes and a directory."""
    return {
        "format_version": 1,
        "name": "inline-good",
        "description": "two sockets and a router",
        "nodes": [
            {"id": "s0", "label": "socket 0", "kind": "node", "cores": 2, "threads_per_core": 2,
             "frequency_ghz": 2.0,
             "caches": [{"level": 1, "size_bytes": 32768, "shared_by_cores": 1},
                        {"level": 3, "size_bytes": 8388608, "shared_by_cores": 2}],
             "memory_capacity_bytes": 1073741824, "memory_read_bandwidth_gbps": 20.0,
             "memory_write_bandwidth_gbps": 10.0, "local_latency_ns": 90,
             "miss_buffers_per_core": 10, "position": {"x": 0, "y": 0}},
            {"id": "s1", "kind": "node", "cores": 2, "threads_per_core": 1, "frequency_ghz": 2.0,
             "caches": [], "memory_capacity_bytes": 1073741824, "memory_read_bandwidth_gbps": 20.0,
             "local_latency_ns": 90, "miss_buffers_per_core": 12},
            {"id": "m0", "kind": "node", "cores": 0, "threads_per_core": 1, "frequency_ghz": 1.0,
             "caches": [], "memory_capacity_bytes": 1073741824, "memory_read_bandwidth_gbps": 5.0,
             "local_latency_ns": 300},
            {"id": "r0", "kind": "router", "label": "router", "forwarding_bandwidth_gbps": 7.5,
             "position": {"x": 1, "y": 0}},
        ],
        "links": [
            {"between": ["s0", "s1"], "bandwidth_per_direction_gbps": 10.0, "latency_ns": 40},
            {"from": "s0", "to": "r0", "bandwidth_gbps": 8.0, "latency_ns": 0},
            {"from": "r0", "to": "s0", "bandwidth_gbps": 6.0, "latency_ns": 50},
            {"between": ["r0", "m0"], "bandwidth_per_direction_gbps": 4.0, "latency_ns": 20},
        ],
        "routes": [{"path": ["s1", "s0", "r0"]}],
        "coherence": {"protocol": "directory", "probe_bytes_per_line": 16,
                      "response_bytes_per_line": 8, "remote_access_overhead_ns": 20,
                      "directory_probe_fraction": 0.25},
        "performance": {"cache_line_bytes": 64, "memory_queue_ns": 40, "link_queue_ns": 20,
                        "queue_exponent": 4},
        "measurements": [
            {"id": "local", "description": "two threads of s0 reading s0", "metric": "read_bandwidth_gbps",
             "streams": [{"cpu_node": "s0", "memory_node": "s0", "threads": 2}], "value": 12.5,
             "source": "made up for the test"},
            {"id": "latency", "metric": "idle_latency_ns",
             "streams": [{"cpu_node": "s1", "memory_node": "s0", "threads": 1}], "value": 130,
             "source": "made up for the test"}],
        "provenance": {"source": "inline test document", "measured": [], "theoretical": [],
                       "reconstructed": ["/links/*/latency_ns"], "notes": ""},
    }


def dependent_misses(**point):
    """A /dependent_misses block of one point, `point` overriding or adding its fields."""
    return {"work_unit_ns": 1.3, "host": "h", "measured_at": "2026-11-27T09:22:50Z", "source": "s",
            "points": [dict({"items_per_miss": 1, "work_units": 0, "miss_ns": 16.3}, **point)]}


def bad_documents():
    """(description, document) pairs that the schema must reject."""
    cases = []

    def variant(description, mutate):
        doc = good_document()
        mutate(doc)
        cases.append((description, doc))

    # Unknown keys, at every level.
    variant("unknown top-level key", lambda d: d.update(extra=1))
    variant("unknown node key", lambda d: d["nodes"][0].update(sockets=1))
    variant("misspelt link key (bandwith_gbps)",
            lambda d: d["links"][1].update(bandwith_gbps=d["links"][1].pop("bandwidth_gbps")))
    variant("unknown cache key", lambda d: d["nodes"][0]["caches"][0].update(ways=8))
    variant("unknown position key", lambda d: d["nodes"][0]["position"].update(z=1))
    variant("unknown coherence key", lambda d: d["coherence"].update(snoop_filter=True))
    variant("unknown provenance key", lambda d: d["provenance"].update(author="x"))
    variant("unknown route key", lambda d: d["routes"][0].update(weight=1))
    # Missing required fields.
    for key in ("format_version", "name", "nodes", "links", "coherence", "provenance"):
        variant(f"missing top-level {key}", lambda d, k=key: d.pop(k))
    for key in ("id", "kind", "cores", "threads_per_core", "frequency_ghz", "caches",
                "memory_capacity_bytes", "memory_read_bandwidth_gbps", "local_latency_ns"):
        variant(f"node without {key}", lambda d, k=key: d["nodes"][0].pop(k))
    variant("router without id", lambda d: d["nodes"][3].pop("id"))
    for key in ("level", "size_bytes", "shared_by_cores"):
        variant(f"cache without {key}", lambda d, k=key: d["nodes"][0]["caches"][0].pop(k))
    variant("position without y", lambda d: d["nodes"][0]["position"].pop("y"))
    for key in ("between", "bandwidth_per_direction_gbps", "latency_ns"):
        variant(f"symmetric link without {key}", lambda d, k=key: d["links"][0].pop(k))
    for key in ("from", "to", "bandwidth_gbps", "latency_ns"):
        variant(f"directed link without {key}", lambda d, k=key: d["links"][1].pop(k))
    variant("coherence without protocol", lambda d: d["coherence"].pop("protocol"))
    variant("coherence without probe_bytes_per_line", lambda d: d["coherence"].pop("probe_bytes_per_line"))
    for key in ("source", "measured", "theoretical", "reconstructed", "notes"):
        variant(f"provenance without {key}", lambda d, k=key: d["provenance"].pop(k))
    variant("route without path", lambda d: d["routes"][0].pop("path"))
    # Types and bounds.
    variant("format_version 2", lambda d: d.update(format_version=2))
    variant("empty name", lambda d: d.update(name=""))
    variant("empty node id", lambda d: d["nodes"][0].update(id=""))
    variant("no nodes", lambda d: d.update(nodes=[], links=[], routes=[]))
    variant("only routers", lambda d: d.update(nodes=[d["nodes"][3]], links=[], routes=[]))
    variant("two nodes, no links", lambda d: d.update(links=[], routes=[]))
    variant("unknown kind", lambda d: d["nodes"][0].update(kind="socket"))
    variant("negative cores", lambda d: d["nodes"][0].update(cores=-1))
    variant("fractional cores", lambda d: d["nodes"][0].update(cores=1.5))
    variant("cores as string", lambda d: d["nodes"][0].update(cores="2"))
    variant("threads_per_core 0", lambda d: d["nodes"][0].update(threads_per_core=0))
    variant("frequency 0", lambda d: d["nodes"][0].update(frequency_ghz=0))
    variant("negative memory capacity", lambda d: d["nodes"][0].update(memory_capacity_bytes=-1))
    variant("zero memory bandwidth on a node with memory",
            lambda d: d["nodes"][0].update(memory_read_bandwidth_gbps=0))
    variant("zero local latency on a node with memory", lambda d: d["nodes"][0].update(local_latency_ns=0))
    variant("zero write bandwidth", lambda d: d["nodes"][0].update(memory_write_bandwidth_gbps=0))
    variant("node without cores and without memory",
            lambda d: d["nodes"][2].update(memory_capacity_bytes=0))
    variant("cache level 0", lambda d: d["nodes"][0]["caches"][0].update(level=0))
    variant("cache size 0", lambda d: d["nodes"][0]["caches"][0].update(size_bytes=0))
    variant("cache shared by 0 cores", lambda d: d["nodes"][0]["caches"][0].update(shared_by_cores=0))
    variant("caches not an array", lambda d: d["nodes"][0].update(caches={}))
    # Routers: only id, kind, label, position.
    variant("router with cores", lambda d: d["nodes"][3].update(cores=4))
    variant("router with memory", lambda d: d["nodes"][3].update(memory_capacity_bytes=1024))
    variant("router with local latency", lambda d: d["nodes"][3].update(local_latency_ns=10))
    # Links.
    variant("zero bandwidth (symmetric)", lambda d: d["links"][0].update(bandwidth_per_direction_gbps=0))
    variant("zero bandwidth (directed)", lambda d: d["links"][1].update(bandwidth_gbps=0))
    variant("negative latency", lambda d: d["links"][0].update(latency_ns=-1))
    variant("between with one end", lambda d: d["links"][0].update(between=["s0"]))
    variant("between with three ends", lambda d: d["links"][0].update(between=["s0", "s1", "r0"]))
    variant("between a node and itself", lambda d: d["links"][0].update(between=["s0", "s0"]))
    variant("both link forms in one entry", lambda d: d["links"][0].update({"from": "s0", "to": "s1"}))
    variant("symmetric link with directed bandwidth key",
            lambda d: d["links"][0].update(bandwidth_gbps=d["links"][0].pop("bandwidth_per_direction_gbps")))
    # Routes.
    variant("route with one node", lambda d: d["routes"][0].update(path=["s0"]))
    variant("route repeating a node", lambda d: d["routes"][0].update(path=["s1", "s0", "s1", "s0"]))
    # Coherence.
    variant("unknown protocol", lambda d: d["coherence"].update(protocol="mesi"))
    variant("directory without fraction", lambda d: d["coherence"].pop("directory_probe_fraction"))
    variant("fraction with source_snoop", lambda d: d["coherence"].update(protocol="source_snoop"))
    variant("fraction with home_snoop", lambda d: d["coherence"].update(protocol="home_snoop"))
    variant("fraction above 1", lambda d: d["coherence"].update(directory_probe_fraction=1.5))
    variant("negative fraction", lambda d: d["coherence"].update(directory_probe_fraction=-0.1))
    variant("negative probe bytes", lambda d: d["coherence"].update(probe_bytes_per_line=-1))
    variant("coherence without response bytes", lambda d: d["coherence"].pop("response_bytes_per_line"))
    variant("negative remote overhead", lambda d: d["coherence"].update(remote_access_overhead_ns=-5))
    # Performance parameters and measurements.
    variant("no performance block", lambda d: d.pop("performance"))
    variant("unknown performance key", lambda d: d["performance"].update(mlp=10))
    variant("zero queue exponent", lambda d: d["performance"].update(queue_exponent=0))
    variant("cores without miss buffers", lambda d: d["nodes"][0].pop("miss_buffers_per_core"))
    variant("miss buffers on a node without cores", lambda d: d["nodes"][2].update(miss_buffers_per_core=4))
    variant("zero forwarding bandwidth", lambda d: d["nodes"][3].update(forwarding_bandwidth_gbps=0))
    variant("unknown metric", lambda d: d["measurements"][0].update(metric="write_bandwidth_gbps"))
    variant("measurement without streams", lambda d: d["measurements"][0].update(streams=[]))
    variant("measurement value zero", lambda d: d["measurements"][0].update(value=0))
    variant("stream with zero threads", lambda d: d["measurements"][0]["streams"][0].update(threads=0))
    # The dependent-miss grid (model/dependent_miss.hpp).
    variant("dependent-miss point with a negative time",
            lambda d: d.update(dependent_misses=dependent_misses(miss_ns=-1)))
    variant("dependent-miss point with k below 1",
            lambda d: d.update(dependent_misses=dependent_misses(items_per_miss=0.5)))
    variant("dependent-miss grid without a source",
            lambda d: d.update(dependent_misses={k: v for k, v in dependent_misses().items() if k != "source"}))
    variant("dependent-miss grid with a work unit of 0",
            lambda d: d.update(dependent_misses=dict(dependent_misses(), work_unit_ns=0)))
    variant("dependent-miss point with an unknown key",
            lambda d: d.update(dependent_misses=dependent_misses(cycles=3)))
    # Provenance.
    variant("empty source", lambda d: d["provenance"].update(source=""))
    variant("measured not an array", lambda d: d["provenance"].update(measured="/nodes/*/cores"))
    variant("measured entry not a string", lambda d: d["provenance"].update(measured=[1]))
    return cases


def other_good_documents():
    """Valid variants: the schema must accept these too (guards against an over-strict schema)."""
    cases = []

    def variant(description, mutate):
        doc = good_document()
        mutate(doc)
        cases.append((description, doc))

    variant("source_snoop without fraction", lambda d: (d["coherence"].pop("directory_probe_fraction"),
                                                        d["coherence"].update(protocol="source_snoop")))
    variant("home_snoop without fraction", lambda d: (d["coherence"].pop("directory_probe_fraction"),
                                                      d["coherence"].update(protocol="home_snoop")))
    variant("fraction 0 and 1", lambda d: d["coherence"].update(directory_probe_fraction=1))
    variant("no routes, no description", lambda d: (d.pop("routes"), d.pop("description")))
    variant("single node without links",
            lambda d: d.update(nodes=[d["nodes"][1]], links=[], routes=[]))
    variant("memory-less node with cores",
            lambda d: d["nodes"][1].update(memory_capacity_bytes=0, memory_read_bandwidth_gbps=0,
                                           local_latency_ns=0))
    variant("latency 0 everywhere", lambda d: [link.update(latency_ns=0) for link in d["links"]])
    variant("router with id and kind only", lambda d: d["nodes"][3].pop("position"))
    variant("a dependent-miss grid", lambda d: d.update(dependent_misses=dependent_misses()))
    return cases


def resolve(doc, pointer):
    """Values addressed by a JSON pointer in which '*' stands for every element of an array/object."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    current = [doc]
    for part in parts:
        following = []
        for value in current:
            if part == "*":
                if isinstance(value, list):
                    following.extend(value)
                elif isinstance(value, dict):
                    following.extend(value.values())
            elif isinstance(value, dict) and part in value:
                following.append(value[part])
            elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
                following.append(value[int(part)])
        current = following
    return current


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schema", required=True, type=pathlib.Path)
    parser.add_argument("--topologies", required=True, type=pathlib.Path)
    args = parser.parse_args()

    failures = []
    schema = json.loads(args.schema.read_text(encoding="utf-8"))
    validator_class = jsonschema.Draft202012Validator
    try:
        validator_class.check_schema(schema)
    except jsonschema.exceptions.SchemaError as error:
        print(f"FAIL {args.schema}: not a valid draft 2020-12 schema: {error.message}")
        return 1
    validator = validator_class(schema)

    def errors_of(doc):
        return sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))

    # Shipped files.
    files = sorted(args.topologies.glob("*.json"))
    if not files:
        failures.append(f"no topology files in {args.topologies}")
    for path in files:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            failures.append(f"{path.name}: not JSON: {error}")
            continue
        for error in errors_of(doc):
            pointer = "/" + "/".join(str(p) for p in error.absolute_path)
            failures.append(f"{path.name}: {pointer}: {error.message}")
        if isinstance(doc, dict):
            if doc.get("name") != path.stem:
                failures.append(f"{path.name}: /name: expected {path.stem!r}, found {doc.get('name')!r}")
            provenance = doc.get("provenance", {})
            for category in ("measured", "theoretical", "reconstructed"):
                entries = provenance.get(category, []) if isinstance(provenance, dict) else []
                for index, entry in enumerate(entries if isinstance(entries, list) else []):
                    if isinstance(entry, str) and entry.startswith("/") and not resolve(doc, entry):
                        failures.append(f"{path.name}: /provenance/{category}/{index}: "
                                        f"pointer {entry!r} addresses no field")
        print(f"checked {path.name}")

    # Inline documents.
    base_errors = errors_of(good_document())
    if base_errors:
        failures.append("inline good document rejected: " + "; ".join(e.message for e in base_errors))
    for description, doc in other_good_documents():
        errors = errors_of(doc)
        if errors:
            failures.append(f"valid variant '{description}' rejected: " + "; ".join(e.message for e in errors))
    bad = bad_documents()
    for description, doc in bad:
        if not errors_of(doc):
            failures.append(f"bad document '{description}' was accepted")
    print(f"checked {len(files)} topology files, {len(bad)} bad and "
          f"{len(other_good_documents()) + 1} good inline documents")

    for failure in failures:
        print("FAIL", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
