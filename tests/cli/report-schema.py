#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# report-schema.py SCHEMA DIR...: every parastack JSON report under the DIRs (a JSON object
# with a "verdict" and "faulty_ranks", at any depth of the directory) validated against SCHEMA
# (docs/report.schema.json). Prints "checked N" and one line per report that does not
# validate: its file, the first failing key's path and why; exit 1 if any does not.
import json
import os
import sys

import jsonschema


def reports(dirs):
    for top in dirs:
        for root, _, files in os.walk(top):
            for name in sorted(files):
                if not name.endswith(".json"):
                    continue
                path = os.path.join(root, name)
                try:
                    with open(path, encoding="utf-8") as f:
                        doc = json.load(f)
                except (OSError, ValueError):
                    continue  # not a report: half-written files, other JSON the tests keep
                if isinstance(doc, dict) and "verdict" in doc and "faulty_ranks" in doc:
                    yield path, doc


def main():
    if len(sys.argv) < 3:
        print("usage: report-schema.py SCHEMA DIR...", file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    checked = bad = 0
    for path, doc in reports(sys.argv[2:]):
        checked += 1
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if errors:
            bad += 1
            e = errors[0]
            where = "/".join(str(p) for p in e.absolute_path) or "(top)"
            print(f"{path}: {where}: {e.message[:300]} ({len(errors)} error(s))")
    print(f"checked {checked}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
