#!/usr/bin/env python3
"""Checks scenarios/schema/scenario.schema.json: it is a valid JSON Schema, every shipped
scenario (scenarios/*.json) is accepted, and broken variants of one are rejected.

Usage: validate_scenarios.py --schema FILE --scenarios DIR
"""
import argparse
import copy
import json
import pathlib
import sys

try:
    import jsonschema
except ImportError:  # a missing dependency is a failure, not a silent skip
    print("validate_scenarios.py: python3-jsonschema is required", file=sys.stderr)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--schema", required=True)
    parser.add_argument("--scenarios", required=True)
    args = parser.parse_args()
    schema = json.loads(pathlib.Path(args.schema).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failures = []
    files = sorted(pathlib.Path(args.scenarios).glob("*.json"))
    if not files:
        failures.append(f"no scenarios in {args.scenarios}")
    for path in files:
        for error in validator.iter_errors(json.loads(path.read_text())):
            failures.append(f"{path.name}: {error.json_path}: {error.message}")
    base = json.loads(files[0].read_text()) if files else {}
    broken = {
        "unknown key": lambda d: d.update(duraton_s=1),
        "no clients": lambda d: d.pop("clients"),
        "zero-size table": lambda d: d["tables"][0].update(size_bytes=0),
        "negative socket": lambda d: d["tables"][0].update(socket=-1),
        "bad stealing": lambda d: d.update(stealing="sometimes"),
        "zero weight": lambda d: d["clients"][0]["queries"].update(scan=0),
        "costs without source": lambda d: d.update(costs={"move_us_per_page": 1, "partition_us_per_page": 2}),
    }
    for name, mutate in broken.items():
        doc = copy.deepcopy(base)
        mutate(doc)
        if validator.is_valid(doc):
            failures.append(f"the schema accepts a scenario with {name}")
    for f in failures:
        print(f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
