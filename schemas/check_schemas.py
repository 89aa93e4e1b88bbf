#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_schemas.py - check the JSON Schemas with an independent validator.

Every line of every valid JSONL fixture must validate against
line.schema.json, and every testdata/bad fixture whose defect is a per-line
rule (TV102..TV108 in bad/MANIFEST) must have a line that does not.
Cross-record rules (RULES.md) are out of a JSON Schema's reach.

usage: check_schemas.py SCHEMA_DIR TESTDATA_DIR   (exit 77: jsonschema
missing, so ctest reports the test as skipped)
"""
import glob
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("check_schemas: python3-jsonschema is not installed; skipped")
    sys.exit(77)

PER_LINE = {"TV102", "TV103", "TV104", "TV105", "TV106", "TV107", "TV108"}


def load_schemas(root):
    store = {}
    for path in glob.glob(os.path.join(root, "**", "*.schema.json"),
                          recursive=True):
        with open(path) as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        store[schema["$id"]] = schema
    return store


def make_validator(store):
    line = next(s for i, s in store.items() if i.endswith("/line.schema.json"))
    try:
        from referencing import Registry, Resource
        registry = Registry().with_resources(
            (i, Resource.from_contents(s)) for i, s in store.items())
        return jsonschema.Draft202012Validator(line, registry=registry)
    except ImportError:         # jsonschema < 4.18 (Debian 12: 4.10)
        resolver = jsonschema.RefResolver.from_schema(line, store=store)
        return jsonschema.Draft202012Validator(line, resolver=resolver)


def line_errors(validator, data):
    """Messages for the lines of `data` that break the schema."""
    errors = []
    for n, raw in enumerate(data.split(b"\n"), 1):
        if n > 1 and raw == b"" and data.endswith(b"\n") \
                and n == data.count(b"\n") + 1:
            break                           # after the last newline
        try:
            record = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            errors.append("%d: not JSON: %s" % (n, e))
            continue
        for e in validator.iter_errors(record):
            errors.append("%d: %s" % (n, e.message))
    return errors


def main():
    schema_dir, testdata = sys.argv[1], sys.argv[2]
    validator = make_validator(load_schemas(schema_dir))
    failures = 0
    good = sorted(glob.glob(os.path.join(testdata, "cpython", "*",
                                         "expected*.jsonl")) +
                  glob.glob(os.path.join(testdata, "jsonl", "*.jsonl")))
    for path in good:
        with open(path, "rb") as f:
            errs = line_errors(validator, f.read())
        if errs:
            failures += 1
            print("FAIL %s: %s" % (path, errs[0]))
    bad = 0
    with open(os.path.join(testdata, "bad", "MANIFEST")) as f:
        for row in f:
            if row.startswith("#"):
                continue
            name, rule = row.split()[:2]
            if rule not in PER_LINE:
                continue
            bad += 1
            with open(os.path.join(testdata, "bad", name), "rb") as g:
                if not line_errors(validator, g.read()):
                    failures += 1
                    print("FAIL %s (%s) validates against the schema"
                          % (name, rule))
    print("%d valid fixtures, %d invalid fixtures, %d failures"
          % (len(good), bad, failures))
    return 1 if failures or not good or not bad else 0


if __name__ == "__main__":
    sys.exit(main())
