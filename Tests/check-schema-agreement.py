#!/usr/bin/env python3
"""Validates every bundled JSON configuration, and the files in Tests/Fixtures/config-json, against
schemas/SocialFusionTimelineConfiguration.file.schema.json twice: with an independent validator
(Python jsonschema, Draft 2020-12) and with `engine schema validate`. Fails when the two disagree,
or when a file's verdict is not the one its folder says.

Usage: Tests/check-schema-agreement.py ENGINE
"""
import glob
import json
import os
import subprocess
import sys

import jsonschema

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
engine = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, ".build", "debug", "engine")
schema_path = os.path.join(root, "schemas", "SocialFusionTimelineConfiguration.file.schema.json")
with open(schema_path, encoding="utf-8") as handle:
    schema = json.load(handle)
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)

cases = [(path, True) for path in sorted(glob.glob(os.path.join(root, "config", "*.json")))]
cases += [(path, True) for path in sorted(glob.glob(os.path.join(root, "Tests/Fixtures/config-json/valid/*.json")))]
cases += [(path, False) for path in sorted(glob.glob(os.path.join(root, "Tests/Fixtures/config-json/invalid/*.json")))]

problems = 0
for path, expected in cases:
    with open(path, encoding="utf-8") as handle:
        document = json.load(handle)
    errors = sorted(validator.iter_errors(document), key=lambda error: list(error.path))
    independent = not errors
    run = subprocess.run([engine, "schema", "validate", "--schema", schema_path, path], capture_output=True, text=True)
    ours = run.returncode == 0
    name = os.path.relpath(path, root)
    verdict = "valid" if independent else "invalid"
    print(f"{name}: jsonschema {verdict}, engine {'valid' if ours else 'invalid'}")
    if independent != ours:
        problems += 1
        print(f"  DISAGREE: jsonschema says {[error.message for error in errors]}; engine says {run.stderr.strip()}")
    if independent != expected:
        problems += 1
        print(f"  expected {'valid' if expected else 'invalid'}")
print(f"{len(cases)} files, {problems} problems")
sys.exit(1 if problems else 0)
