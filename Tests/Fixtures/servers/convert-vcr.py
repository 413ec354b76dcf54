#!/usr/bin/env python3
"""Converts VCR cassettes (YAML, as Python's vcrpy and Mastodon.py's test suite record them) into
the exchange files the recorded-server tests replay (Tests/Fixtures/servers/README.md):

    python3 Tests/Fixtures/servers/convert-vcr.py OUT_DIR CASSETTE.yaml...

Each cassette becomes OUT_DIR/<name>.json with its exchanges in order, unchanged but for the
form: request method, URL and body; response status, headers (name and value, in order) and
body. Request headers are left out (a token placeholder and the client's own). Needs PyYAML.
"""
import json
import pathlib
import sys

import yaml


def convert(path):
    cassette = yaml.safe_load(open(path, encoding="utf-8"))
    exchanges = []
    for interaction in cassette["interactions"]:
        request, response = interaction["request"], interaction["response"]
        headers = []
        for name, values in (response.get("headers") or {}).items():
            for value in values if isinstance(values, list) else [values]:
                headers.append([name, str(value)])
        body = (response.get("body") or {}).get("string")
        exchanges.append({
            "request": {"method": request["method"], "url": request["uri"], "body": request.get("body")},
            "response": {"status": response["status"]["code"], "headers": headers, "body": body or ""},
        })
    return {"recordedFrom": pathlib.Path(path).name, "exchanges": exchanges}


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for path in sys.argv[2:]:
        target = out / (pathlib.Path(path).stem + ".json")
        with open(target, "w", encoding="utf-8") as handle:
            json.dump(convert(path), handle, ensure_ascii=False, indent=1)
            handle.write("\n")
        print(f"wrote {target}")


if __name__ == "__main__":
    main()
