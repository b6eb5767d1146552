"""Shared by the schema tests: a JSON Schema is valid, accepts every shipped file of its kind, and
rejects each broken variant of one of them (a mutation of a deep copy)."""
import copy
import json
import pathlib
import sys

try:
    import jsonschema
except ImportError:  # a missing dependency is a failure, not a silent skip
    print("schema_check.py: python3-jsonschema is required", file=sys.stderr)
    sys.exit(1)


def check(schema_path, files_dir, kind, pick_base, broken):
    """Returns the exit status after printing every failure; `pick_base(documents)` chooses the
    document the `broken` mutations ({name: function(doc)}) start from."""
    schema = json.loads(pathlib.Path(schema_path).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failures = []
    files = sorted(pathlib.Path(files_dir).glob("*.json"))
    if not files:
        failures.append(f"no {kind}s in {files_dir}")
    documents = [json.loads(path.read_text()) for path in files]
    for path, document in zip(files, documents):
        for error in validator.iter_errors(document):
            failures.append(f"{path.name}: {error.json_path}: {error.message}")
    base = pick_base(documents) if documents else {}
    for name, mutate in broken.items():
        doc = copy.deepcopy(base)
        mutate(doc)
        if validator.is_valid(doc):
            failures.append(f"the schema accepts a {kind} with {name}")
    for f in failures:
        print(f, file=sys.stderr)
    return 1 if failures else 0
