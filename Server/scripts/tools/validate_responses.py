#!/usr/bin/env python3
"""Validates the OpenAPI document, and recorded traffic against it in both directions.

Usage:
  validate_responses.py OPENAPI_JSON RECORDED_JSON            # responses, and requests where recorded
  validate_responses.py --requests OPENAPI_JSON LOG_JSONL     # requests only (the test suite's log)

RECORDED_JSON is a list of {"path": "/admin/v1/flags/{key}" (a template, or a concrete path with a
query), "method": "get", "status": 200, "body": <JSON or null>} and optionally "request" (the JSON
request body) and "requestNotJSON" (true when the body sent was not JSON). LOG_JSONL has one such
object per line (TestServer writes it when FLAG_SERVER_REQUEST_LOG is set).

A request is checked both ways: a body or query the document refuses must be answered 4xx, and a
body and query the document allows must not be refused as malformed (400 with field problems). In
the requests log, a path the document lacks answered 404 and a method its path lacks answered 405
are what the document implies.
Prints one line per problem and a summary; exits 1 if there is any problem.
Needs openapi-spec-validator and openapi-schema-validator (PyPI).
"""
import json
import re
import sys
import urllib.parse

from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate as validate_spec


def escape(segment):
    return segment.replace("~", "~0").replace("/", "~1")


def template_of(document, path):
    """The documented path template a concrete path (query stripped) belongs to."""
    path = path.split("?", 1)[0]
    if path in document["paths"]:
        return path
    for template in document["paths"]:
        pattern = "^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, path):
            return template
    return None


def schema_errors(document, pointer, value):
    schema = dict(document)
    schema["$ref"] = pointer
    validator = OAS31Validator(schema)
    errors = []
    for error in validator.iter_errors(value):
        location = "/".join(str(part) for part in error.absolute_path) or "(root)"
        errors.append(f"{location}: {error.message}")
    return errors


def response_problems(document, item, template):
    where = f'{item["method"].upper()} {template} {item["status"]}'
    operation = document["paths"][template].get(item["method"])
    response = operation["responses"].get(str(item["status"]))
    if response is None:
        return [f"{where}: the status is not documented"]
    pointer = f'#/paths/{escape(template)}/{item["method"]}/responses/{item["status"]}'
    if "$ref" in response:
        pointer = response["$ref"]
        response = document["components"]["responses"][pointer.split("/")[-1]]
    content = response.get("content", {})
    if item["body"] is None:
        if content and item["status"] != 304:
            return [f"{where}: documented with a body, answered without one"]
        return []
    if "application/json" not in content:
        return [f"{where}: answered JSON, documented without a JSON body"]
    return [f"{where}: {error}" for error in schema_errors(document, pointer + "/content/application~1json/schema", item["body"])]


def query_errors(document, template, item):
    """How the request's query breaks its documented query parameters (each read as its type)."""
    query = urllib.parse.parse_qs(item["path"].partition("?")[2], keep_blank_values=True)
    places = [(f"#/paths/{escape(template)}", document["paths"][template].get("parameters", [])),
              (f'#/paths/{escape(template)}/{item["method"]}', document["paths"][template][item["method"]].get("parameters", []))]
    errors = []
    for base, parameters in places:
        for index, parameter in enumerate(parameters):
            if parameter.get("in") != "query":
                continue
            name, values = parameter["name"], query.get(parameter["name"], [])
            if not values:
                if parameter.get("required"):
                    errors.append(f"{name}: missing (required)")
                continue
            if len(values) > 1:
                errors.append(f"{name}: given {len(values)} times")
                continue
            text, kind = values[0], parameter.get("schema", {}).get("type")
            value = text
            if kind == "integer":
                if not re.fullmatch(r"-?[0-9]+", text):
                    errors.append(f"{name}: not an integer")
                    continue
                value = int(text)
            elif kind == "boolean":
                if text not in ("true", "false"):
                    errors.append(f"{name}: not true or false")
                    continue
                value = text == "true"
            errors += [f"{name}: {error}" for error in schema_errors(document, f"{base}/parameters/{index}/schema", value)]
    return errors


def request_problems(document, item, template, tally):
    """Checks the request body and query both ways; tally counts allowed and refused requests."""
    operation = document["paths"][template].get(item["method"])
    body_spec = operation.get("requestBody")
    sent = item.get("request") is not None or item.get("requestNotJSON")
    query = query_errors(document, template, item)
    if body_spec is None and not query:
        return []
    where = f'{item["method"].upper()} {item["path"]} {item["status"]}'
    pointer = f'#/paths/{escape(template)}/{item["method"]}/requestBody/content/application~1json/schema'
    if body_spec is not None and "$ref" in body_spec:
        return [f"{where}: requestBody by $ref is not supported by this script"]
    if body_spec is None:
        errors = []
    elif item.get("requestNotJSON"):
        errors = ["the body is not JSON"]
    elif not sent:
        errors = ["the body is required"] if body_spec.get("required") else []
    else:
        errors = schema_errors(document, pointer, item["request"])
    errors = query + errors
    status = item["status"]
    reply = item.get("body") if isinstance(item.get("body"), dict) else {}
    problems = (reply.get("error") or {}).get("problems") or []
    if errors:
        tally["refused"] += 1
        if status < 400:
            return [f"{where}: the server accepted a body the document refuses ({'; '.join(errors)})"]
        if status >= 500:
            return [f"{where}: the server failed ({status}) on a body the document refuses"]
    else:
        tally["allowed"] += 1
        if status == 400 and problems:
            message = (reply.get("error") or {}).get("message", "")
            return [f"{where}: the server refused a body the document allows: {message}"]
    return []


def main():
    arguments = sys.argv[1:]
    requests_only = arguments[:1] == ["--requests"]
    if requests_only:
        arguments = arguments[1:]
    document = json.load(open(arguments[0]))
    if requests_only:
        recorded = [json.loads(line) for line in open(arguments[1]) if line.strip()]
    else:
        recorded = json.load(open(arguments[1]))
    validate_spec(document)
    problems = []
    tally = {"allowed": 0, "refused": 0}
    for item in recorded:
        if requests_only and item["method"] == "options":
            continue  # CORS preflights: answered by the middleware, not API operations
        template = template_of(document, item["path"])
        if template is None or item["method"] not in document["paths"][template]:
            # What the document implies for what it does not describe: 404 for a path it lacks,
            # 405 for a method its path lacks.
            implied = 404 if template is None else 405
            if requests_only and item["status"] == implied:
                continue
            if not requests_only or item["path"].startswith(("/admin/", "/ofrep/")):
                problems.append(f'{item["method"].upper()} {item["path"]}: the operation is not documented')
            continue
        if not requests_only:
            problems += response_problems(document, item, template)
        if requests_only or "request" in item or "requestNotJSON" in item:
            problems += request_problems(document, item, template, tally)
    for problem in problems:
        print(problem)
    checked = "requests" if requests_only else "responses"
    print(
        f"checked {len(recorded)} {checked} ({tally['allowed']} request bodies the document allows, "
        f"{tally['refused']} it refuses, each answered accordingly), {len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
