"""Write one top-level member of a hand-written topology file, leaving the rest as it is.

The shipped topologies are formatted by hand (a node per line), so the tools that add derived
blocks (tools/ecm/apply-data-paths.py, tools/loop-cycles/refresh-shipped.py) must not re-dump
them. set_member replaces the member's value where it stands, or appends it as the last member,
checks that the result parses to the old document with only that member changed, and writes the
file atomically.
"""
import json
import pathlib


def set_member(file: pathlib.Path, key: str, value) -> bool:
    """Sets document[key] = value in `file`; returns False when it already had that value."""
    text = file.read_text()
    old = json.loads(text)
    if old.get(key) == value:
        return False
    block = json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  ")
    marker = f'\n  "{key}": '
    if key in old:
        start = text.index(marker) + len(marker)
        _, length = json.JSONDecoder().raw_decode(text[start:])
        new_text = text[:start] + block + text[start + length:]
    else:
        body = text[: text.rstrip().rfind("}")].rstrip()
        new_text = body + "," + marker + block + "\n}\n"
    if json.loads(new_text) != {**old, key: value}:
        raise SystemExit(f"{file}: /{key} could not be written without changing the rest")
    tmp = file.with_suffix(".json.tmp")
    tmp.write_text(new_text)
    tmp.replace(file)
    return True
