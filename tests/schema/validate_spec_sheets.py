#!/usr/bin/env python3
"""Checks topologies/schema/spec-sheet.schema.json: it is a valid JSON Schema, every shipped spec
sheet (topologies/specs/*.json) is accepted, and broken variants of one are rejected.

Usage: validate_spec_sheets.py --schema FILE --specs DIR
"""
import argparse
import copy
import json
import pathlib
import sys

try:
    import jsonschema
except ImportError:  # a missing dependency is a failure, not a silent skip
    print("validate_spec_sheets.py: python3-jsonschema is required", file=sys.stderr)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--schema", required=True)
    parser.add_argument("--specs", required=True)
    args = parser.parse_args()
    schema = json.loads(pathlib.Path(args.schema).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failures = []
    files = sorted(pathlib.Path(args.specs).glob("*.json"))
    if not files:
        failures.append(f"no spec sheets in {args.specs}")
    for path in files:
        for error in validator.iter_errors(json.loads(path.read_text())):
            failures.append(f"{path.name}: {error.json_path}: {error.message}")
    base = next((json.loads(p.read_text()) for p in files if "socket_links" in json.loads(p.read_text())), {})
    broken = {
        "an unknown key": lambda d: d.update(socket_link={}),
        "no mode": lambda d: d.pop("mode"),
        "mode snc5": lambda d: d.update(mode="snc5"),
        "zero cores": lambda d: d["socket"].update(cores=0),
        "HBM as channel memory": lambda d: d["socket"]["memory"].update(kind="hbm3"),
        "a link with both rates": lambda d: d["socket_links"].update(gbps_per_direction=100),
        "a source that is no pointer": lambda d: d.update(sources={"socket/cores": "x"}),
        "a CXL x3 link": lambda d: d.update(cxl_devices=[{"socket": 0, "pcie_generation": 5, "lanes": 3, "media": "ddr5",
                                                          "media_mts": 4800, "capacity_bytes": 1}]),
    }
    for name, mutate in broken.items():
        doc = copy.deepcopy(base)
        mutate(doc)
        if validator.is_valid(doc):
            failures.append(f"the schema accepts a spec sheet with {name}")
    for f in failures:
        print(f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
