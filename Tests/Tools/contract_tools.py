#!/usr/bin/env python3
"""Checks Airlock's OpenAPI contract testing with tools no one here wrote: schemathesis and openapi-core.

    python3 Tests/Tools/contract_tools.py schemathesis --base-url http://127.0.0.1:PORT --spec SPEC.yaml [--max-examples N]
    python3 Tests/Tools/contract_tools.py openapi-core --spec SPEC.yaml --cases CASES.json
    python3 Tests/Tools/contract_tools.py install

(`--help` lists every subcommand; Tests/Tools/README.md says what each one checks.)

It installs what it needs itself, once, into a virtual environment under `.build/contract-tools/`
(schemathesis and openapi-core from PyPI at the versions pinned below, every dependency pinned
too), then runs again inside it. It writes nowhere else but a temporary folder it removes.

Made for a test to drive as a child process: everything goes to standard output (standard error
is joined to it), a line at least every 15 seconds while it works, and the last line is one JSON
object: {"tool": "contract_tools", "command": ..., "ok": true|false, "problems": [...],
"findings": [...], "checks": N, ...}. `problems` say what failed and why; `findings` are known
differences between the tools and the documents, each checked exactly as described (`--strict`
turns them into problems). Exit status: 0 ok, 1 problems, 2 the tools could not be installed or
the command could not run.
"""

import argparse
import base64
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

sys.dont_write_bytecode = True  # nothing beside this script in the source tree

# MARK: - Installation

ROOT = Path(__file__).resolve().parents[2]
HOME = Path(os.environ.get("CONTRACT_TOOLS_HOME") or ROOT / ".build" / "contract-tools")
TOOL = "contract_tools"

# The versions this script was verified with (the newest releases), and every package they pulled
# in, pinned as constraints so that a fresh machine installs the same set.
REQUIREMENTS = ["schemathesis==4.32.5", "openapi-core==0.23.1"]
CONSTRAINTS = """\
annotated-types==0.8.0
anyio==4.16.0
attrs==26.1.0
certifi==2026.10.19.post1
charset-normalizer==3.5.2
click==8.5.1
graphql-core==3.3.2
harfile==0.6.0
hypothesis==6.170.17
hypothesis-graphql==0.13.5
idna==3.20
iniconfig==2.3.1
isodate==0.7.2
jsonschema==4.26.0
jsonschema-path==0.4.6
jsonschema-specifications==2025.9.1
jsonschema_rs==0.60.3
lazy-object-proxy==1.13.0
markdown-it-py==4.3.0
MarkupSafe==3.0.4
mdurl==0.1.2
more-itertools==11.2.1
openapi-schema-validator==0.8.1
openapi-spec-validator==0.8.5
packaging==26.3
pathable==0.5.0
pluggy==1.7.0
pydantic==2.14.4
pydantic-settings==2.16.3
pydantic_core==2.50.5
Pygments==2.21.0
pyrate-limiter==4.5.1
pytest==9.2.0
python-dotenv==1.2.4
PyYAML==6.0.4
referencing==0.37.0
requests==2.34.2
rfc3339-validator==0.1.4
rich==15.0.0
rpds-py==2026.9.1
six==1.17.0
sortedcontainers==2.4.0
typing-inspection==0.4.5
typing_extensions==4.16.0
urllib3==2.8.0
Werkzeug==3.1.9
"""
sys.path.insert(0, str(Path(__file__).resolve().parent))
import toolenv  # noqa: E402  (Tests/Tools' shared installation and result line)
from toolenv import ToolError, say  # noqa: E402

ENVIRONMENT = toolenv.Environment(
    TOOL, HOME, REQUIREMENTS, CONSTRAINTS,
    "import schemathesis, openapi_core; from importlib.metadata import version; print('schemathesis', version('schemathesis'), 'openapi-core', version('openapi-core'))",
)

# Hang guard, not a performance limit (see toolenv): one schemathesis phase that takes longer is stuck.
PHASE_LIMIT = 15 * 60


class Report(toolenv.Report):
    def __init__(self, command, strict=False):
        super().__init__(TOOL, command, strict)


# MARK: - schemathesis

# The checks of each phase. Positive: valid requests, whose answers must keep the contract, and
# must not be refused (`positive_data_acceptance`: a mock that refuses a valid request has a
# false violation). Negative: requests that break the contract, each to be refused with a 4xx.
PHASES = {
    "positive": ["not_a_server_error", "status_code_conformance", "content_type_conformance", "response_headers_conformance", "response_schema_conformance", "positive_data_acceptance"],
    "negative": ["negative_data_rejection", "not_a_server_error"],
}


def decoded(payload):
    """An ndjson body (`{"$base64": …}`, or text) as text for a message."""
    if payload is None:
        return ""
    if isinstance(payload, dict) and "$base64" in payload:
        return base64.b64decode(payload["$base64"]).decode("utf-8", errors="replace")
    return payload if isinstance(payload, str) else json.dumps(payload)


def short(text, limit=300):
    text = text.replace("\n", " / ")
    return text if len(text) <= limit else text[:limit] + "…"


class Failure:
    """One failed check of one test case: the operation, the check and what was sent and answered."""

    def __init__(self, mode, phase, operation, check, failure, case, interaction):
        self.mode = mode
        self.phase = phase
        self.operation = operation
        self.check = check
        self.code = failure.get("code", "")
        self.title = failure.get("title", "")
        self.message = failure.get("message", "")
        request = (interaction or {}).get("request") or {}
        response = (interaction or {}).get("response") or {}
        self.method = request.get("method") or case.get("method", "")
        self.url = request.get("uri", "")
        self.request_headers = request.get("headers") or {}
        self.request_body = decoded(request.get("body"))
        self.status = response.get("status_code")
        self.response_body = decoded(response.get("content"))
        self.component = (case.get("meta") or {}).get("phase", {}).get("data", {}).get("description", "")

    def describe(self):
        headers = ", ".join(f"{name}: {values[0] if isinstance(values, list) and len(values) == 1 else values}" for name, values in self.request_headers.items())
        return (
            f"{self.mode} ({self.phase}): {self.operation}: {self.check} ({self.code} {self.title}): {short(self.message, 400)}; "
            f"the case: {self.method} {self.url}" + (f" [{short(headers, 200)}]" if headers else "")
            + (f" body {short(self.request_body)!r}" if self.request_body else " no body")
            + f"; answered {self.status}" + (f" {short(self.response_body)!r}" if self.response_body else "")
        )


# Known differences between schemathesis and what the documents say, each recognised exactly:
# `matches(failure)` names the one failure it explains. Anything else is a problem.
KNOWN = [
    (
        "uspto-empty-form",
        lambda f: f.mode == "negative" and f.check == "negative_data_rejection" and f.operation == "POST /{dataset}/{version}/records"
        and f.method == "POST" and f.request_body == "" and f.status == 200,
        "uspto POST /{dataset}/{version}/records: schemathesis sends a form object without its required `criteria` as an empty "
        "application/x-www-form-urlencoded body, which is no body at all; the operation's requestBody is not `required` (OpenAPI's "
        "default), so a request without one keeps the contract and Airlock answers it 200",
    ),
]


def known(failure):
    return next((text for _, matches, text in KNOWN if matches(failure)), None)


def run_schemathesis(mode, spec, base_url, max_examples, seed, workdir):
    """One `schemathesis run` in a mode; returns its ndjson events."""
    events_path = workdir / f"{mode}.ndjson"
    arguments = [
        ENVIRONMENT.venv / "bin" / "schemathesis", "run", spec,
        "--origin", base_url,  # the document's own server path is appended
        "--mode", mode,
        "--checks", ",".join(PHASES[mode]),
        "--max-examples", str(max_examples),
        "--seed", str(seed),
        "--workers", "1",
        "--generation-database", "none",
        "--no-color",
        "--report", "ndjson",
        "--report-ndjson-path", events_path,
        "--request-timeout", "30",
    ]
    # schemathesis exits 1 when a check failed: the events say which.
    ENVIRONMENT.run_logged(arguments, f"schemathesis, {mode} phase", limit=PHASE_LIMIT, prefix=f"  {mode}: ", statuses=(0, 1), cwd=workdir)
    if not events_path.exists():
        raise ToolError(f"schemathesis wrote no events to {events_path}")
    return [json.loads(line) for line in events_path.read_text().splitlines() if line.strip()]


def read_events(mode, events, report):
    """The counts of a phase, and each failed check as a Failure; errors are problems."""
    counts = {"operations": 0, "cases": 0, "checks": 0, "failed_checks": 0, "checks_by_name": {}}
    failures = {}
    for event in events:
        kind, body = next(iter(event.items()))
        if kind == "LoadingFinished":
            counts["operations"] = ((body.get("statistic") or {}).get("operations") or {}).get("selected", 0)
        elif kind in ("NonFatalError", "FatalError"):
            report.problem(f"{mode}: schemathesis reported an error ({kind}): {short(json.dumps(body), 800)}")
        elif kind == "ScenarioFinished":
            recorder = body.get("recorder") or {}
            if body.get("status") == "error":
                report.problem(f"{mode} ({body.get('phase')}): {recorder.get('label')}: the scenario ended in an error: {short(json.dumps(body), 800)}")
            cases = recorder.get("cases") or {}
            for case_id, checks in (recorder.get("checks") or {}).items():
                counts["cases"] += 1
                case = (cases.get(case_id) or {}).get("value") or {}
                operation = recorder.get("label", "")
                if operation == "Stateful tests":  # a step of a stateful scenario: its own operation
                    operation = f"{case.get('method', '').upper()} {case.get('path', '')}".strip() or operation
                for check in checks:
                    counts["checks"] += 1
                    tally = counts["checks_by_name"].setdefault(check["name"], {"passed": 0, "failed": 0})
                    if check.get("status") != "failure":
                        tally["passed"] += 1
                        continue
                    tally["failed"] += 1
                    counts["failed_checks"] += 1
                    failure = Failure(mode, body.get("phase", ""), operation, check["name"], (check.get("failure_info") or {}).get("failure") or {}, case, (recorder.get("interactions") or {}).get(case_id))
                    failures.setdefault((failure.phase, failure.operation, failure.check, failure.method, failure.url, failure.request_body), failure)
    return counts, list(failures.values())


def command_schemathesis(arguments):
    report = Report("schemathesis", strict=arguments.strict)
    spec = Path(arguments.spec).resolve()
    if not spec.is_file():
        raise ToolError(f"no OpenAPI document at {spec}")
    base_url = arguments.base_url.rstrip("/")
    if urlsplit(base_url).path:
        raise ToolError(f"--base-url {base_url}: give the server's origin (scheme, host and port); the document's server path is appended")
    report.extra.update({"spec": str(spec), "base_url": base_url, "max_examples": arguments.max_examples, "seed": arguments.seed, "phases": {}})
    workdir = Path(tempfile.mkdtemp(prefix="contract-tools-"))
    try:
        for mode in arguments.modes or list(PHASES):
            events = run_schemathesis(mode, str(spec), base_url, arguments.max_examples, arguments.seed, workdir)
            counts, failures = read_events(mode, events, report)
            report.check(counts["cases"] > 0, f"schemathesis ran test cases in the {mode} phase", counts["cases"])
            findings = []
            for failure in failures:
                explanation = known(failure)
                if explanation:
                    findings.append(failure)
                    report.finding(f"{explanation} (seen: {failure.describe()})")
                else:
                    report.problem(failure.describe())
            counts["problems"] = len(failures) - len(findings)
            counts["findings"] = len(findings)
            report.extra["phases"][mode] = counts
            say(f"{TOOL}: {mode}: {counts['operations']} operation(s), {counts['cases']} case(s), {counts['checks']} check(s), {counts['failed_checks']} failed ({counts['findings']} known)")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return report.finish()


# MARK: - openapi-core


class CaseRequest:
    """A case's request as openapi-core's request protocol reads it."""

    def __init__(self, case):
        from werkzeug.datastructures import Headers, ImmutableMultiDict
        from werkzeug.http import parse_cookie
        from urllib.parse import parse_qsl

        from openapi_core.datatypes import RequestParameters

        parts = urlsplit(case["url"])
        self.host_url = f"{parts.scheme}://{parts.netloc}"
        self.path = parts.path or "/"
        self.method = case["method"].lower()
        headers = Headers(pairs(case.get("headers")))
        body = case.get("body")
        self.body = body.encode("utf-8") if isinstance(body, str) else None
        self.content_type = headers.get("Content-Type", "")
        self.parameters = RequestParameters(
            query=ImmutableMultiDict(parse_qsl(parts.query, keep_blank_values=True)),
            header=headers,
            cookie=ImmutableMultiDict(parse_cookie(headers.get("Cookie", ""))),
        )


class CaseResponse:
    """A case's response as openapi-core's response protocol reads it."""

    def __init__(self, response):
        from werkzeug.datastructures import Headers

        self.status_code = int(response["status"])
        self.headers = Headers(pairs(response.get("headers")))
        body = response.get("body")
        self.data = body.encode("utf-8") if isinstance(body, str) else b""
        self.content_type = self.headers.get("Content-Type", "")


def pairs(headers):
    """Headers as `[[name, value]]` or `{name: value}`."""
    if not headers:
        return []
    return list(headers.items()) if isinstance(headers, dict) else [tuple(pair) for pair in headers]


def verdict(call):
    """openapi-core's verdict: valid, or invalid with its error and the errors under it."""
    try:
        call()
        return {"valid": True, "errors": []}
    except Exception as error:  # noqa: BLE001 — openapi-core's errors are its verdict
        from openapi_core.exceptions import OpenAPIError

        if not isinstance(error, OpenAPIError):
            raise
        return {"valid": False, "errors": explain(error)}


def explain(error):
    """An error and its causes (schema errors included), one line each."""
    lines = []
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        lines.append(f"{type(error).__name__}: {error}")
        for schema_error in getattr(error, "schema_errors", None) or []:
            lines.append(f"  {getattr(schema_error, 'message', schema_error)}")
        error = error.__cause__ or error.__context__
    return lines


def command_openapi_core(arguments):
    from openapi_core import OpenAPI

    report = Report("openapi-core")
    spec = Path(arguments.spec).resolve()
    if not spec.is_file():
        raise ToolError(f"no OpenAPI document at {spec}")
    try:
        cases = json.loads(Path(arguments.cases).read_text())
    except (OSError, ValueError) as error:
        raise ToolError(f"cannot read the cases {arguments.cases}: {error}") from error
    if not isinstance(cases, list):
        raise ToolError(f"{arguments.cases}: expected a JSON array of cases")
    openapi = OpenAPI.from_file_path(str(spec))
    verdicts = []
    for index, case in enumerate(cases):
        name = case.get("name", f"case {index}")
        try:
            request = CaseRequest(case)
        except (KeyError, TypeError, ValueError) as error:
            raise ToolError(f"{arguments.cases}: case {name!r} is not {{method, url, headers, body, response}}: {error}") from error
        entry = {"name": name, "request": verdict(lambda: openapi.validate_request(request))}
        if case.get("response") is not None:
            response = CaseResponse(case["response"])
            entry["response"] = verdict(lambda: openapi.validate_response(request, response))
        verdicts.append(entry)
        report.checks += 1
        shown = "; ".join(f"{side} {'valid' if entry[side]['valid'] else 'invalid: ' + short(' | '.join(entry[side]['errors']), 300)}" for side in ("request", "response") if side in entry)
        say(f"  {name}: {shown}")
    report.extra.update({"spec": str(spec), "verdicts": verdicts})
    return report.finish()


# MARK: - Commands


def command_install(arguments):
    from importlib.metadata import version

    report = Report("install")
    report.extra.update({"venv": str(ENVIRONMENT.venv), "python": sys.version.split()[0], "schemathesis": version("schemathesis"), "openapi-core": version("openapi-core")})
    return report.finish()


def parser():
    top = argparse.ArgumentParser(prog="contract_tools.py", description=__doc__.split("\n\n")[0])
    commands = top.add_subparsers(dest="command", required=True)

    command = commands.add_parser("install", help="install (or reuse) schemathesis and openapi-core in .build/contract-tools and print their versions")
    command.set_defaults(run=command_install)

    command = commands.add_parser("schemathesis", help="run schemathesis against a server keeping an OpenAPI document: valid requests (positive), then invalid ones (negative)")
    command.add_argument("--base-url", required=True, help="the server's origin, e.g. http://127.0.0.1:8080 (the document's server path is appended)")
    command.add_argument("--spec", required=True, help="the OpenAPI document the server keeps")
    command.add_argument("--max-examples", type=int, default=25, help="test cases per operation and phase (default 25)")
    command.add_argument("--seed", type=int, default=29, help="the random seed, for the same cases each run (default 29)")
    command.add_argument("--mode", dest="modes", action="append", choices=list(PHASES), help="run only this phase (repeatable; default both)")
    command.add_argument("--strict", action="store_true", help="known differences (findings) fail too")
    command.set_defaults(run=command_schemathesis, modes=None)

    command = commands.add_parser("openapi-core", help="openapi-core's verdict on each case's request and response")
    command.add_argument("--spec", required=True, help="the OpenAPI document")
    command.add_argument("--cases", required=True, help="a JSON array of {name, method, url, headers, body, response: {status, headers, body}}")
    command.set_defaults(run=command_openapi_core)
    return top


def main():
    return toolenv.main(ENVIRONMENT, parser, __file__)


if __name__ == "__main__":
    sys.exit(main())
