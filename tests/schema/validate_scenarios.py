#!/usr/bin/env python3
"""Checks scenarios/schema/scenario.schema.json: it is a valid JSON Schema, every shipped
scenario (scenarios/*.json) is accepted, and broken variants of one are rejected.

Usage: validate_scenarios.py --schema FILE --scenarios DIR
"""
import argparse
import sys

from schema_check import check

BROKEN = {
    "unknown key": lambda d: d.update(duraton_s=1),
    "no clients": lambda d: d.pop("clients"),
    "zero-size table": lambda d: d["tables"][0].update(size_bytes=0),
    "negative socket": lambda d: d["tables"][0].update(socket=-1),
    "bad stealing": lambda d: d.update(stealing="sometimes"),
    "zero weight": lambda d: d["clients"][0]["queries"].update(scan=0),
    "costs without source": lambda d: d.update(costs={"move_us_per_page": 1, "partition_us_per_page": 2}),
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--schema", required=True)
    parser.add_argument("--scenarios", required=True)
    args = parser.parse_args()
    return check(args.schema, args.scenarios, "scenario", lambda docs: docs[0], BROKEN)


if __name__ == "__main__":
    sys.exit(main())
