#!/usr/bin/env python3
"""Checks topologies/schema/spec-sheet.schema.json: it is a valid JSON Schema, every shipped spec
sheet (topologies/specs/*.json) is accepted, and broken variants of one are rejected.

Usage: validate_spec_sheets.py --schema FILE --specs DIR
"""
import argparse
import sys

from schema_check import check

BROKEN = {
    "an unknown key": lambda d: d.update(socket_link={}),
    "no mode": lambda d: d.pop("mode"),
    "mode snc5": lambda d: d.update(mode="snc5"),
    "zero cores": lambda d: d["socket"].update(cores=0),
    "no clock at all": lambda d: [d["socket"].pop(k, None) for k in ("base_frequency_ghz", "max_frequency_ghz")],
    "HBM as channel memory": lambda d: d["socket"]["memory"].update(kind="hbm3"),
    "a link with both rates": lambda d: d["socket_links"].update(gbps_per_direction=100),
    "a source that is no pointer": lambda d: d.update(sources={"socket/cores": "x"}),
    "a CXL x3 link": lambda d: d.update(cxl_devices=[{"socket": 0, "pcie_generation": 5, "lanes": 3, "media": "ddr5",
                                                      "media_mts": 4800, "capacity_bytes": 1}]),
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--schema", required=True)
    parser.add_argument("--specs", required=True)
    args = parser.parse_args()
    # The mutations need a two-socket sheet (one with socket links).
    return check(args.schema, args.specs, "spec sheet",
                 lambda docs: next((d for d in docs if "socket_links" in d), {}), BROKEN)


if __name__ == "__main__":
    sys.exit(main())
