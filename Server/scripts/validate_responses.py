#!/usr/bin/env python3
"""Validates the OpenAPI document and recorded responses against it.

Usage: validate_responses.py OPENAPI_JSON RECORDED_JSON

RECORDED_JSON is a list of {"path": "/admin/v1/flags/{key}", "method": "get", "status": 200,
"body": <JSON or null>}. Prints one line per problem; exits 1 if there is any.
Needs openapi-spec-validator and openapi-schema-validator (PyPI).
"""
import json
import sys

from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate as validate_spec


def escape(segment):
    return segment.replace("~", "~0").replace("/", "~1")


def main():
    document = json.load(open(sys.argv[1]))
    recorded = json.load(open(sys.argv[2]))
    validate_spec(document)
    problems = []
    for item in recorded:
        where = f'{item["method"].upper()} {item["path"]} {item["status"]}'
        operation = document["paths"].get(item["path"], {}).get(item["method"])
        if operation is None:
            problems.append(f"{where}: the operation is not documented")
            continue
        response = operation["responses"].get(str(item["status"]))
        if response is None:
            problems.append(f"{where}: the status is not documented")
            continue
        pointer = f'#/paths/{escape(item["path"])}/{item["method"]}/responses/{item["status"]}'
        if "$ref" in response:
            pointer = response["$ref"]
            response = document["components"]["responses"][pointer.split("/")[-1]]
        content = response.get("content", {})
        if item["body"] is None:
            if content and item["status"] != 304:
                problems.append(f"{where}: documented with a body, answered without one")
            continue
        if "application/json" not in content:
            problems.append(f"{where}: answered JSON, documented without a JSON body")
            continue
        schema = dict(document)
        schema["$ref"] = pointer + "/content/application~1json/schema"
        validator = OAS31Validator(schema)
        for error in validator.iter_errors(item["body"]):
            location = "/".join(str(part) for part in error.absolute_path) or "(root)"
            problems.append(f"{where}: {location}: {error.message}")
    for problem in problems:
        print(problem)
    print(f"checked {len(recorded)} responses, {len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
