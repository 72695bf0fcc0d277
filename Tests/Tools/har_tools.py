#!/usr/bin/env python3
"""Checks Airlock's HAR claims with tools no one here wrote: haralyzer and mitmproxy.

    python3 Tests/Tools/har_tools.py check FILE.har...
    python3 Tests/Tools/har_tools.py mitm-replay --airlock .build/debug/airlock --workdir DIR
    python3 Tests/Tools/har_tools.py mitm-load FILE.har [--expect-json EXPECTED.json]

(`--help` lists every subcommand; Tests/Tools/README.md says what each one checks.)

It installs what it needs itself, once, into a virtual environment under `.build/har-tools/`
(haralyzer and mitmproxy from PyPI, at the versions pinned below), then runs again inside it. It
writes nowhere else but the paths it is given (`--out`, `--workdir`).

Made for a test to drive as a child process: everything goes to standard output (standard error
is joined to it), a line at least every 15 seconds while it works, and the last line is one JSON
object: {"tool": "har_tools", "command": ..., "ok": true|false, "problems": [...],
"findings": [...], ...}. `problems` say what failed and why; `findings` are differences between
the tools that are known and pinned (each checked exactly as described; `--strict` turns them
into problems). Exit status: 0 ok, 1 problems, 2 the tools could not be installed or the command
could not run.
"""

import argparse
import base64
import gzip
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import zlib
from datetime import datetime
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

sys.dont_write_bytecode = True  # nothing beside this script in the source tree

# MARK: - Installation

ROOT = Path(__file__).resolve().parents[2]
HOME = Path(os.environ.get("HAR_TOOLS_HOME") or ROOT / ".build" / "har-tools")
VENV = HOME / "venv"
VENV_PYTHON = VENV / "bin" / "python"
UPSTREAM_SCRIPT = ROOT / "Tests" / "MockServerTests" / "Upstream" / "fidelity_upstream.py"

# The versions this script was verified with (haralyzer 2.4.0 is the newest release, mitmproxy
# 11.0.2 the newest 11.x), and every package they pulled in, pinned as constraints so that a
# fresh machine installs the same set.
REQUIREMENTS = ["haralyzer==2.4.0", "mitmproxy==11.0.2"]
CONSTRAINTS = """\
aioquic==1.2.0
asgiref==3.8.1
attrs==26.1.0
blinker==1.9.0
Brotli==1.1.0
cached-property==2.0.1
certifi==2026.10.18
cffi==2.1.1
click==8.5.1
cryptography==44.0.3
Flask==3.1.0
h11==0.14.0
h2==4.1.0
hpack==4.2.0
hyperframe==6.0.1
itsdangerous==2.2.0
Jinja2==3.1.6
kaitaistruct==0.10
ldap3==2.9.1
MarkupSafe==3.0.4
mitmproxy_rs==0.10.7
msgpack==1.1.0
passlib==1.7.4
publicsuffix2==2.20191221
pyasn1==0.6.5
pyasn1_modules==0.4.2
pycparser==3.12
pylsqpack==0.3.24
pyOpenSSL==24.3.0
pyparsing==3.2.0
pyperclip==1.9.0
python-dateutil==4.0.0
ruamel.yaml==0.18.6
ruamel.yaml.clib==0.2.15
service-identity==24.2.0
sortedcontainers==2.4.0
tornado==6.4.2
typing_extensions==4.16.0
tzdata==2026.6
urwid==2.6.16
wcwidth==0.9.4
Werkzeug==3.1.9
wsproto==1.2.0
zstandard==0.23.0
"""
sys.path.insert(0, str(Path(__file__).resolve().parent))
import toolenv  # noqa: E402  (Tests/Tools' shared installation and result line)
from toolenv import HEARTBEAT, INSTALL_LIMIT, ToolError, die_with_parent, say  # noqa: E402,F401

ENVIRONMENT = toolenv.Environment(
    "har_tools", HOME, REQUIREMENTS, CONSTRAINTS, "import haralyzer, mitmproxy.version; print('mitmproxy', mitmproxy.version.VERSION)"
)
VENV_PYTHON = ENVIRONMENT.python

# A hang guard, not a performance limit (see toolenv): a step that takes longer is stuck.
STEP_LIMIT = 45  # a child's banner, a socket exchange, a child's exit


def inside_venv():
    return ENVIRONMENT.inside()


def run_logged(arguments, what, limit=INSTALL_LIMIT, prefix="  "):
    return ENVIRONMENT.run_logged(arguments, what, limit=limit, prefix=prefix)


def ensure_tools():
    ENVIRONMENT.ensure()


class Report(toolenv.Report):
    def __init__(self, command, strict=False):
        super().__init__("har_tools", command, strict)


def fail_to_run(command, message):
    return toolenv.fail_to_run("har_tools", command, message)


# MARK: - HAR 1.2 field check

# From the HAR 1.2 specification (http://www.softwareishard.com/blog/har-12-spec/): for each
# object, its fields as (name, type, required). Types: "string", "number" (a JSON number, not a
# boolean), "integer" (a number with no fraction), "size" (a whole number of bytes, or -1 when not
# available), "datetime" (ISO 8601 with a zone), "boolean", "object", "array", or the
# name of another object below. Fields that start with "_" are custom (allowed anywhere); any
# other field not listed is reported as a note, not a problem (the spec lets parsers reject such
# files but does not require it).
SPEC = {
    "log": [
        ("version", "string", True), ("creator", "creator", True), ("browser", "creator", False), ("pages", "array:page", False),
        ("entries", "array:entry", True), ("comment", "string", False),
    ],
    "creator": [("name", "string", True), ("version", "string", True), ("comment", "string", False)],
    "page": [
        ("startedDateTime", "datetime", True), ("id", "string", True), ("title", "string", True), ("pageTimings", "pageTimings", True),
        ("comment", "string", False),
    ],
    "pageTimings": [("onContentLoad", "number", False), ("onLoad", "number", False), ("comment", "string", False)],
    "entry": [
        ("pageref", "string", False), ("startedDateTime", "datetime", True), ("time", "number", True), ("request", "request", True),
        ("response", "response", True), ("cache", "cache", True), ("timings", "timings", True), ("serverIPAddress", "string", False),
        ("connection", "string", False), ("comment", "string", False),
    ],
    "request": [
        ("method", "string", True), ("url", "string", True), ("httpVersion", "string", True), ("cookies", "array:cookie", True),
        ("headers", "array:nameValue", True), ("queryString", "array:nameValue", True), ("postData", "postData", False),
        ("headersSize", "size", True), ("bodySize", "size", True), ("comment", "string", False),
    ],
    "response": [
        ("status", "integer", True), ("statusText", "string", True), ("httpVersion", "string", True), ("cookies", "array:cookie", True),
        ("headers", "array:nameValue", True), ("content", "content", True), ("redirectURL", "string", True), ("headersSize", "size", True),
        ("bodySize", "size", True), ("comment", "string", False),
    ],
    "cookie": [
        ("name", "string", True), ("value", "string", True), ("path", "string", False), ("domain", "string", False), ("expires", "string", False),
        ("httpOnly", "boolean", False), ("secure", "boolean", False), ("comment", "string", False),
    ],
    "nameValue": [("name", "string", True), ("value", "string", True), ("comment", "string", False)],
    # params and text are each "required*": one of them must be there (the spec calls them
    # mutually exclusive; tools commonly write both, which is accepted).
    "postData": [("mimeType", "string", True), ("params", "array:param", False), ("text", "string", False), ("comment", "string", False)],
    "param": [("name", "string", True), ("value", "string", False), ("fileName", "string", False), ("contentType", "string", False), ("comment", "string", False)],
    "content": [
        ("size", "size", True), ("compression", "number", False), ("mimeType", "string", True), ("text", "string", False),
        ("encoding", "string", False), ("comment", "string", False),
    ],
    "cache": [("beforeRequest", "cacheEntry?", False), ("afterRequest", "cacheEntry?", False), ("comment", "string", False)],
    "cacheEntry": [("expires", "string", False), ("lastAccess", "string", True), ("eTag", "string", True), ("hitCount", "integer", True), ("comment", "string", False)],
    "timings": [
        ("blocked", "number", False), ("dns", "number", False), ("connect", "number", False), ("send", "number", True), ("wait", "number", True),
        ("receive", "number", True), ("ssl", "number", False), ("comment", "string", False),
    ],
}

# ISO 8601 date and time with a zone, as the spec's examples: 2009-07-24T19:20:30.45+01:00, …Z.
ISO_8601 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$")


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class FieldCheck:
    def __init__(self, problems, notes):
        self.problems = problems
        self.notes = notes

    def value(self, value, kind, where):
        if kind.endswith("?"):
            if value is None:
                return
            kind = kind[:-1]
        if kind.startswith("array:"):
            if not isinstance(value, list):
                self.problems.append(f"{where}: is {json_type(value)}; expected an array")
                return
            for index, item in enumerate(value):
                self.value(item, kind[len("array:"):], f"{where}[{index}]")
        elif kind in SPEC:
            self.object(value, kind, where)
        elif kind == "string":
            if not isinstance(value, str):
                self.problems.append(f"{where}: is {json_type(value)}; expected a string")
        elif kind == "datetime":
            if not isinstance(value, str):
                self.problems.append(f"{where}: is {json_type(value)}; expected an ISO 8601 date string")
            elif not ISO_8601.match(value):
                self.problems.append(f"{where}: {value!r} is not an ISO 8601 date and time with a zone (such as 2009-07-24T19:20:30.45+01:00)")
            else:
                try:
                    datetime.fromisoformat(value.replace("Z", "+00:00"))
                except ValueError as error:
                    self.problems.append(f"{where}: {value!r} is not a valid date: {error}")
        elif kind == "number":
            if not is_number(value):
                self.problems.append(f"{where}: is {json_type(value)}; expected a number")
        elif kind in ("integer", "size"):
            if not is_number(value) or value != int(value):
                self.problems.append(f"{where}: is {json_type(value)} {value!r}; expected a whole number" + (" (a size in bytes, or -1)" if kind == "size" else ""))
            elif kind == "size" and value < -1:
                self.problems.append(f"{where}: is {value}; expected a size in bytes or -1 (not available)")
        elif kind == "boolean":
            if not isinstance(value, bool):
                self.problems.append(f"{where}: is {json_type(value)}; expected true or false")
        else:
            raise AssertionError(kind)

    def object(self, value, kind, where):
        if not isinstance(value, dict):
            self.problems.append(f"{where}: is {json_type(value)}; expected an object ({kind})")
            return
        known = set()
        for name, field_kind, required in SPEC[kind]:
            known.add(name)
            if name not in value:
                if required:
                    self.problems.append(f"{where}.{name}: is missing; HAR 1.2 requires it ({field_kind})")
                continue
            self.value(value[name], field_kind, f"{where}.{name}")
        for name in value:
            if name not in known and not name.startswith("_"):
                self.notes.append(f"{where}.{name}: not a HAR 1.2 field of {kind} and not a custom (_) field")


def json_type(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def check_semantics(document, problems, notes):
    """What the spec says beyond types: entry.time is the sum of the timings (without -1s),
    send/wait/receive are not negative, the URL is absolute without a fragment, base64 text
    decodes, postData has params or text."""
    log = document.get("log") if isinstance(document, dict) else None
    if not isinstance(log, dict) or not isinstance(log.get("entries"), list):
        return
    if log.get("version") != "1.2":
        problems.append(f"log.version: is {log.get('version')!r}; expected \"1.2\" (the version this file claims to follow)")
    page_ids = {page.get("id") for page in log.get("pages") or [] if isinstance(page, dict)}
    previous = None
    for index, entry in enumerate(log["entries"]):
        where = f"log.entries[{index}]"
        if not isinstance(entry, dict):
            continue
        if "pageref" in entry and entry["pageref"] not in page_ids:
            problems.append(f"{where}.pageref: {entry['pageref']!r} names no page in log.pages")
        timings = entry.get("timings")
        if isinstance(timings, dict) and is_number(entry.get("time")):
            for name in ("send", "wait", "receive"):
                if is_number(timings.get(name)) and timings[name] < 0:
                    problems.append(f"{where}.timings.{name}: is {timings[name]}; HAR 1.2 says send, wait and receive must not be negative")
            for name in ("blocked", "dns", "connect", "ssl"):
                if is_number(timings.get(name)) and timings[name] < 0 and timings[name] != -1:
                    problems.append(f"{where}.timings.{name}: is {timings[name]}; expected a time or -1")
            total = sum(value for name, value in timings.items() if not name.startswith("_") and name != "comment" and is_number(value) and value != -1)
            # HAR 1.2: "the time value for the request must be equal to the sum of the timings"
            # (ssl is part of connect, and counted once when both are given).
            if is_number(timings.get("ssl")) and timings["ssl"] > 0 and is_number(timings.get("connect")) and timings["connect"] >= timings["ssl"]:
                total -= timings["ssl"]
            if abs(total - entry["time"]) > 0.01 + 1e-6 * abs(entry["time"]):
                # mitmproxy counts ssl on top of connect; accept that sum too.
                plain = sum(value for name, value in timings.items() if name in ("blocked", "dns", "connect", "send", "wait", "receive", "ssl") and is_number(value) and value != -1)
                if abs(plain - entry["time"]) > 0.01 + 1e-6 * abs(entry["time"]):
                    problems.append(f"{where}.time: is {entry['time']}; HAR 1.2 says it is the sum of the timings ({total})")
        started = entry.get("startedDateTime")
        if isinstance(started, str) and ISO_8601.match(started):
            try:
                moment = datetime.fromisoformat(started.replace("Z", "+00:00"))
                if previous and moment < previous:
                    notes.append(f"{where}.startedDateTime: earlier than the entry before it (the spec prefers entries sorted by start)")
                previous = moment
            except ValueError:
                pass
        request = entry.get("request")
        if isinstance(request, dict):
            url = request.get("url")
            if isinstance(url, str):
                parts = urlsplit(url)
                if not parts.scheme or not parts.netloc:
                    problems.append(f"{where}.request.url: {url!r} is not an absolute URL")
                if "#" in url:
                    problems.append(f"{where}.request.url: {url!r} includes a fragment; HAR 1.2 leaves fragments out")
                query = request.get("queryString")
                if isinstance(query, list) and all(isinstance(item, dict) for item in query):
                    names = [item.get("name") for item in query]
                    in_url = [name for name, _ in parse_qsl(parts.query, keep_blank_values=True)]
                    if names != in_url:
                        notes.append(f"{where}.request.queryString: names {names} differ from the URL's query {in_url}")
            post = request.get("postData")
            if isinstance(post, dict) and "params" not in post and "text" not in post:
                problems.append(f"{where}.request.postData: has neither params nor text; HAR 1.2 requires one of them")
            check_cookies_against_headers(request, "Cookie", f"{where}.request", notes)
        response = entry.get("response")
        if isinstance(response, dict):
            content = response.get("content")
            if isinstance(content, dict) and isinstance(content.get("text"), str):
                data = None
                if content.get("encoding") == "base64":
                    try:
                        data = base64.b64decode(content["text"], validate=True)
                    except (ValueError, TypeError) as error:
                        problems.append(f"{where}.response.content.text: says base64 but does not decode: {error}")
                elif content.get("encoding") is None:
                    data = content["text"].encode("utf-8", "surrogatepass")
                else:
                    notes.append(f"{where}.response.content.encoding: {content['encoding']!r} (only base64 is read here)")
                if data is not None and is_number(content.get("size")) and content["size"] != len(data):
                    notes.append(f"{where}.response.content.size: is {content['size']}, the text holds {len(data)} bytes")
            check_cookies_against_headers(response, "Set-Cookie", f"{where}.response", notes)


def check_cookies_against_headers(message, header, where, notes):
    headers = message.get("headers")
    cookies = message.get("cookies")
    if isinstance(headers, list) and isinstance(cookies, list) and not cookies:
        count = sum(1 for field in headers if isinstance(field, dict) and str(field.get("name", "")).lower() == header.lower())
        if count:
            notes.append(f"{where}.cookies: empty although {count} {header} field(s) are in headers")


def haralyzer_read(document, problems):
    """Reads every entry through haralyzer's objects, touching each spec field it exposes."""
    from haralyzer import HarParser

    try:
        parser = HarParser(document)
        _ = (parser.version, parser.creator)
        count = 0
        for page in parser.pages:
            entries = page.entries
            for entry in entries:
                count += 1
                label = f"haralyzer entry {entry.url!r}"
                if entry.startTime is None:
                    problems.append(f"{label}: haralyzer could not parse startedDateTime {entry.raw_entry.get('startedDateTime')!r}")
                _ = (entry.time, entry.timings, entry.cache)
                request = entry.request
                _ = (
                    request.method, request.url, request.httpVersion, request.cookies, request.headers, request.queryString,
                    request.headersSize, request.bodySize, request.formatted,
                )
                response = entry.response
                _ = (
                    response.status, response.statusText, response.httpVersion, response.headers, response.bodySize,
                    response.headersSize, response.redirectURL, response.mimeType, response.contentSize, response.textEncoding,
                )
                if "text" in entry.raw_entry["response"]["content"]:
                    _ = (response.text, response.formatted)
            page.get_total_size(entries)
        if count != len(document["log"]["entries"]):
            problems.append(f"haralyzer read {count} entries; the file has {len(document['log']['entries'])}")
        return count
    except Exception as error:  # noqa: BLE001 — any failure of the parser is the finding
        problems.append(f"haralyzer could not read the file: {type(error).__name__}: {error}")
        return None


def command_check(arguments):
    report = Report("check")
    files = []
    for path in arguments.files:
        problems, notes = [], []
        entries = None
        try:
            raw = Path(path).read_bytes()
            # HAR files are UTF-8 (a byte-order mark allowed).
            text = raw.decode("utf-8-sig")
            document = json.loads(text)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            problems.append(f"not a readable UTF-8 JSON file: {error}")
            document = None
        if document is not None:
            if not isinstance(document, dict) or "log" not in document:
                problems.append("the top level is not an object with a \"log\" field")
            else:
                FieldCheck(problems, notes).object(document["log"], "log", "log")
                check_semantics(document, problems, notes)
                entries = haralyzer_read(document, problems)
                if isinstance(document["log"].get("entries"), list):
                    entries = len(document["log"]["entries"])
                    if arguments.entries is not None and entries != arguments.entries:
                        problems.append(f"log.entries: holds {entries} entries; expected {arguments.entries}")
        for problem in problems:
            report.problem(f"{path}: {problem}")
        for note in notes:
            say(f"NOTE: {path}: {note}")
        files.append({"file": path, "entries": entries, "problems": len(problems), "notes": notes})
        say(f"har_tools check: {path}: {entries} entries, {len(problems)} problem(s), {len(notes)} note(s)")
    report.extra["files"] = files
    return report.finish()


# MARK: - Raw HTTP

# The fidelity table (Tests/MockServerTests/FidelityTests.swift, FidelityCase.all), for runs by
# hand; the tests pass theirs with --cases.
DEFAULT_CASES = [
    {"name": "json with odd spacing, escapes, floats and big integers", "method": "GET", "target": "/json-odd"},
    {"name": "ndjson", "method": "GET", "target": "/ndjson"},
    {"name": "form", "method": "GET", "target": "/form"},
    {"name": "binary", "method": "GET", "target": "/binary"},
    {"name": "gzip", "method": "GET", "target": "/gzip"},
    {"name": "deflate", "method": "GET", "target": "/deflate"},
    {"name": "br", "method": "GET", "target": "/br"},
    {"name": "chunked", "method": "GET", "target": "/chunked"},
    {"name": "empty", "method": "GET", "target": "/empty"},
    {"name": "204", "method": "GET", "target": "/no-content"},
    {"name": "304", "method": "GET", "target": "/not-modified", "headers": [["If-None-Match", '"v1"']]},
    {"name": "repeated Set-Cookie", "method": "GET", "target": "/cookies"},
    {"name": "duplicate and mixed-case fields", "method": "GET", "target": "/headers"},
    {
        "name": "request secrets that also occur in the response",
        "method": "POST",
        "target": "/secrets?key=date&access_token=tok_abcdef123",
        "headers": [
            ["Authorization", "Bearer tok_abcdef123"], ["X-Api-Key", "item"], ["Content-Type", "application/json"],
            ["Referer", "https://app.example.com/page?access_token=tok_abcdef123"],
        ],
        "body": '{"password": "s3cr3t-pass", "pin": "1234"}',
    },
]


def load_cases(path):
    if not path:
        return DEFAULT_CASES
    cases = json.loads(Path(path).read_text())
    return cases["cases"] if isinstance(cases, dict) else cases


def request_bytes(case, host):
    """The request as FidelityCase.request(target:host:) writes it, closing the connection."""
    head = f"{case['method']} {case['target']} HTTP/1.1\r\nHost: {host}\r\n"
    for name, value in case.get("headers") or []:
        head += f"{name}: {value}\r\n"
    body = (case.get("body") or "").encode()
    if case.get("body") is not None:
        head += f"Content-Length: {len(body)}\r\n"
    head += "Connection: close\r\n\r\n"
    return head.encode() + body


def exchange(port, data):
    """Sends bytes to 127.0.0.1:port and reads until the server closes the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=STEP_LIMIT) as connection:
        connection.settimeout(STEP_LIMIT)
        connection.sendall(data)
        received = b""
        while True:
            chunk = connection.recv(65536)
            if not chunk:
                return received
            received += chunk


def parse_response(raw, method):
    """Status, every field in order (name as sent, value trimmed), the body de-chunked — as
    WireResponse.parse in FidelityTests.swift."""
    end = raw.find(b"\r\n\r\n")
    if end < 0:
        raise ToolError(f"no complete response head in {raw[:200]!r}")
    lines = raw[:end].decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    status = int(parts[1])
    fields = []
    for line in lines[1:]:
        if ":" in line:
            name, _, value = line.partition(":")
            fields.append([name, value.strip(" \t")])
    rest = raw[end + 4:]
    lowered = {name.lower(): value for name, value in fields}
    if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
        body = b""
    elif "chunked" in lowered.get("transfer-encoding", "").lower():
        body = b""
        while True:
            line_end = rest.find(b"\r\n")
            size = int(rest[:line_end].split(b";")[0], 16) if line_end >= 0 else 0
            if size == 0:
                break
            body += rest[line_end + 2:line_end + 2 + size]
            rest = rest[line_end + 2 + size + 2:]
    elif "content-length" in lowered:
        body = rest[: int(lowered["content-length"])]
    else:
        body = rest
    return {"status": status, "fields": fields, "body": body}


def fetch_all(port, cases, host=None):
    answers = []
    for case in cases:
        raw = exchange(port, request_bytes(case, host or f"127.0.0.1:{port}"))
        answers.append(parse_response(raw, case["method"]))
    return answers


def encodable(response):
    return {"status": response["status"], "fields": response["fields"], "body_base64": base64.b64encode(response["body"]).decode()}


# Framing: fields that describe one transfer, not the response — a replay sends its body with a
# length where the server chunked it, and closes where it kept alive (as FidelityTests).
FRAMING = {"content-length", "transfer-encoding", "connection", "keep-alive"}


def compared(fields, also=()):
    leave_out = FRAMING | {name.lower() for name in also}
    return [[name, value] for name, value in fields if name.lower() not in leave_out]


def decode_coding(body, coding):
    """The body without its Content-Encoding (gzip, deflate with or without the zlib wrapper,
    br, identity); raises ValueError when it does not decode."""
    result = body
    for one in reversed([part.strip().lower() for part in coding.split(",") if part.strip()]):
        if one in ("identity", "none"):
            continue
        if one in ("gzip", "x-gzip"):
            result = gzip.decompress(result)
        elif one == "deflate":
            try:
                result = zlib.decompress(result)
            except zlib.error:
                result = zlib.decompress(result, -15)
        elif one == "br":
            import brotli  # from the virtual environment (mitmproxy depends on it)

            result = brotli.decompress(result)
        else:
            raise ValueError(f"unknown content coding {one!r}")
    return result


def field(fields, name):
    values = [value for field_name, value in fields if field_name.lower() == name.lower()]
    return ", ".join(values) if values else None


# MARK: - Child processes


class Child:
    """A child process (its own session) whose output lines are collected by a thread."""

    def __init__(self, arguments, what):
        self.what = what
        self.lines = []
        self.condition = threading.Condition()
        say(f"har_tools: starting {what}: {' '.join(str(a) for a in arguments)}")
        try:
            self.process = subprocess.Popen(
                [str(a) for a in arguments], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                text=True, errors="replace", start_new_session=True, preexec_fn=die_with_parent,
            )
        except OSError as error:
            raise ToolError(f"could not start {what}: {error}") from error
        self.reader = threading.Thread(target=self._pump, daemon=True)
        self.reader.start()

    def _pump(self):
        for line in self.process.stdout:
            with self.condition:
                self.lines.append(line.rstrip("\n"))
                self.condition.notify_all()
        with self.condition:
            self.condition.notify_all()

    def wait_for_line(self, pattern):
        """The first match of `pattern` in the output, within STEP_LIMIT."""
        started = time.monotonic()
        deadline = started + STEP_LIMIT
        beat = started
        with self.condition:
            while True:
                for line in self.lines:
                    match = re.search(pattern, line)
                    if match:
                        return match
                if self.process.poll() is not None and not self.reader.is_alive():
                    raise ToolError(f"{self.what} exited ({self.process.returncode}) before printing its address; it said:\n" + self.output())
                now = time.monotonic()
                if now >= deadline:
                    raise ToolError(f"{self.what} printed no address within {STEP_LIMIT} s; it said:\n" + self.output())
                if now - beat >= HEARTBEAT:
                    beat = now
                    say(f"har_tools: waiting for {self.what} to say where it listens ({int(now - started)} s)")
                self.condition.wait(min(deadline - now, 1))

    def interrupt(self):
        """Ctrl-C (SIGINT); returns the exit status, or None when it had to be killed."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            status = self.process.wait(timeout=STEP_LIMIT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            status = None
        self.reader.join(5)
        return status

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def output(self):
        return "\n".join(self.lines[-40:])


def start_upstream():
    child = Child([sys.executable, UPSTREAM_SCRIPT], "the fidelity upstream")
    return child, int(child.wait_for_line(r"^port (\d+)").group(1))


def mitmdump_path():
    return VENV / "bin" / "mitmdump"


def mitm_confdir():
    # mitmproxy makes its CA in its confdir (~/.mitmproxy by default): keep it in HOME.
    return HOME / "mitmproxy-conf"


def record_with_mitmdump(upstream, cases, out):
    """Sends each case through `mitmdump --mode reverse:…` with the hardump option (the savehar
    addon writes the HAR when mitmdump stops) and returns the answers the clients got."""
    out = Path(out)
    if out.exists():
        out.unlink()
    child = Child(
        [
            mitmdump_path(), "--mode", f"reverse:http://127.0.0.1:{upstream}", "--listen-host", "127.0.0.1", "--listen-port", "0",
            "--set", f"confdir={mitm_confdir()}", "--set", f"hardump={out}", "--set", "flow_detail=0",
        ],
        "mitmdump",
    )
    try:
        port = int(child.wait_for_line(r"listening at 127\.0\.0\.1:(\d+)").group(1))
        relayed = fetch_all(port, cases)
    finally:
        status = child.interrupt()
    if status != 0 or not out.exists():
        raise ToolError(f"mitmdump stopped with {status} and wrote {'no' if not out.exists() else 'a'} HAR file; it said:\n" + child.output())
    return relayed


def record_with_airlock(airlock, upstream, cases, out):
    child = Child([airlock, "record", "--target", f"http://127.0.0.1:{upstream}", "--cassette", out, "--port", "0", "--quiet"], "airlock record")
    try:
        port = last_port(child)
        relayed = fetch_all(port, cases)
    finally:
        status = child.interrupt()
    if status != 0:
        raise ToolError(f"airlock record exited with {status}; it said:\n" + child.output())
    return relayed


def last_port(child):
    """The last :port of the banner line (`… call http://127.0.0.1:41234 instead`)."""
    line = child.wait_for_line(r"://(127\.0\.0\.1|localhost):\d+").string
    return int(re.findall(r"://(?:127\.0\.0\.1|localhost):(\d+)", line)[-1])


def serve_with_airlock(airlock, har, cases):
    child = Child([airlock, "serve", har, "--port", "0", "--quiet"], "airlock serve")
    try:
        port = last_port(child)
        replayed = fetch_all(port, cases)
    finally:
        status = child.interrupt()
    if status != 0:
        raise ToolError(f"airlock serve exited with {status} after Ctrl-C; it said:\n" + child.output())
    return replayed


def with_upstream(arguments, body):
    if arguments.upstream:
        return body(arguments.upstream)
    upstream, port = start_upstream()
    try:
        return body(port)
    finally:
        upstream.stop()


# MARK: - mitm-record / airlock-record


def command_mitm_record(arguments):
    report = Report("mitm-record")
    cases = load_cases(arguments.cases)
    relayed = with_upstream(arguments, lambda port: record_with_mitmdump(port, cases, arguments.out))
    entries = json.loads(Path(arguments.out).read_text())["log"]["entries"]
    if len(entries) != len(cases):
        report.problem(f"{arguments.out}: mitmproxy wrote {len(entries)} entries for {len(cases)} requests")
    report.extra["har"] = arguments.out
    report.extra["statuses"] = [answer["status"] for answer in relayed]
    return report.finish()


def command_airlock_record(arguments):
    report = Report("airlock-record")
    cases = load_cases(arguments.cases)
    relayed = with_upstream(arguments, lambda port: record_with_airlock(arguments.airlock, port, cases, arguments.out))
    report.extra["har"] = arguments.out
    report.extra["statuses"] = [answer["status"] for answer in relayed]
    return report.finish()


# MARK: - mitm-replay


def command_mitm_replay(arguments):
    """A HAR recorded by mitmproxy from the upstream replays through `airlock serve` as the
    upstream answered, case by case."""
    report = Report("mitm-replay", strict=arguments.strict)
    cases = load_cases(arguments.cases)
    workdir = Path(arguments.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    har = workdir / "mitm.har"

    def record(port):
        live = fetch_all(port, cases)  # the upstream, directly: what a replay must serve
        record_with_mitmdump(port, cases, har)
        return live

    live = with_upstream(arguments, record)
    document = json.loads(har.read_text())
    entries = document["log"]["entries"]
    if len(entries) != len(cases):
        report.problem(f"mitmproxy wrote {len(entries)} entries for {len(cases)} requests")
    replayed = serve_with_airlock(arguments.airlock, str(har), cases)
    (workdir / "live.json").write_text(json.dumps([encodable(answer) for answer in live], indent=1))
    (workdir / "replayed.json").write_text(json.dumps([encodable(answer) for answer in replayed], indent=1))

    results = []
    for index, case in enumerate(cases):
        entry = entries[index] if index < len(entries) else None
        results.append(compare_replay(case, live[index], replayed[index], entry, report))
    results.append(binary_probe(arguments.airlock, workdir, report))
    report.extra["cases"] = results
    report.extra["har"] = str(har)
    return report.finish()


def written_as(entry):
    """What mitmproxy wrote for a response body: base64 or text, and its sizes."""
    if entry is None:
        return None
    content = entry["response"].get("content", {})
    return {
        "encoding": content.get("encoding"), "text_chars": len(content.get("text") or ""), "size": content.get("size"),
        "compression": content.get("compression"), "bodySize": entry["response"].get("bodySize"),
    }


def compare_replay(case, live, replayed, entry, report):
    """Compares the replay of mitmproxy's entry with the upstream's own answer.

    Left out of the field comparison, each for its reason:
    - Content-Length, Transfer-Encoding, Connection, Keep-Alive: framing (as FidelityTests). The
      upstream chunks /chunked where Airlock's replay sends a length, and Airlock adds
      `Connection: close` to answer a request that asked for it.
    - Nothing that mitmproxy adds: in reverse mode mitmproxy 11 relays the upstream's response
      fields as they came (checked: its HAR's response headers are the upstream's, in order,
      repeated and mixed-case names kept, with Content-Length or Transfer-Encoding), and adds
      none; so no other field is left out.
    - Content-Encoding, only for a body the upstream sent in a content coding that decodes
      (gzip, deflate, br): HAR 1.2 keeps bodies decoded, and mitmproxy writes the decoded text
      while keeping the Content-Encoding field; Airlock serves such a decoded entry without its
      Content-Encoding (sending the coded name over decoded bytes would be wrong). So for these
      the replay's body is compared with the upstream's body decoded, and the replay must not
      have a Content-Encoding field.
    """
    name = case["name"]
    result = {"name": name, "target": case["target"], "mitmproxy_wrote": written_as(entry)}
    differences = []
    coding = field(live["fields"], "Content-Encoding")
    expected_body = live["body"]
    also = ()
    if coding and live["body"]:
        try:
            expected_body = decode_coding(live["body"], coding)
            also = ("content-encoding",)
            if field(replayed["fields"], "Content-Encoding") is not None:
                differences.append(f"the replay keeps Content-Encoding: {field(replayed['fields'], 'Content-Encoding')} over a decoded body")
        except Exception as error:  # noqa: BLE001 — gzip, zlib and brotli each raise their own error types
            result["note"] = f"the upstream's {coding} body does not decode ({error}); compared as sent"
    if replayed["status"] != live["status"]:
        differences.append(f"status {replayed['status']}, upstream {live['status']}")
    replay_fields, live_fields = compared(replayed["fields"], also), compared(live["fields"], also)
    if replay_fields != live_fields:
        differences.append(f"fields {replay_fields}, upstream {live_fields}")
    if replayed["body"] != expected_body:
        known = latin1_text_finding(entry, expected_body, replayed["body"])
        if known and not differences:
            report.finding(f"{name} ({case['target']}): {known}")
            result["result"] = "known difference"
            result["detail"] = known
            return result
        differences.append(f"body {len(replayed['body'])} bytes {replayed['body'][:80]!r}, upstream{' (decoded)' if also else ''} {len(expected_body)} bytes {expected_body[:80]!r}")
    if differences:
        for difference in differences:
            report.problem(f"{name} ({case['target']}): {difference}")
        result["result"] = "differs"
        result["detail"] = "; ".join(differences)
    else:
        result["result"] = "same"
        say(f"har_tools mitm-replay: {name} ({case['target']}): same status, fields and body" + (" (decoded, without Content-Encoding)" if also else ""))
    return result


def latin1_text_finding(entry, expected, replayed):
    """mitmproxy writes a body whose first 100 bytes are not mostly control bytes as text, not
    base64, decoded with the Content-Type's charset — latin-1 when it names none — and no
    `encoding` field; HAR 1.2 says text is UTF-8, which is how Airlock reads it. This returns a
    description when exactly that happened (the text is the upstream's bytes read as latin-1, and
    the replay is that text in UTF-8), else None."""
    if entry is None:
        return None
    content = entry["response"].get("content", {})
    text = content.get("text")
    if content.get("encoding") is not None or not isinstance(text, str):
        return None
    try:
        as_latin1 = text.encode("latin-1")
    except UnicodeEncodeError:
        return None
    if as_latin1 != expected or replayed != text.encode("utf-8"):
        return None
    return (
        f"mitmproxy wrote the {len(expected)}-byte body as latin-1 text without an encoding field (not base64: its first 100 bytes "
        f"are not 30% control bytes), and Airlock reads HAR text as UTF-8 (HAR 1.2), so the replay sends {len(replayed)} bytes "
        f"(each byte from 0x80 up as two); the text read as latin-1 is the upstream's bytes"
    )


def binary_probe(airlock, workdir, report):
    """What mitmproxy writes for a body that its HAR writer deems binary, and whether Airlock
    reads it: a flow made in process with bytes 255…0 (more than 30% control bytes in the first
    100), exported by mitmproxy's own savehar addon (SaveHar.make_har, the code behind hardump),
    then served by `airlock serve`."""
    from mitmproxy import connection, http
    from mitmproxy.addons.savehar import SaveHar

    body = bytes(range(255, -1, -1)) * 4
    client = connection.Client(peername=("127.0.0.1", 0), sockname=("127.0.0.1", 0), timestamp_start=time.time())
    flow = http.HTTPFlow(client, connection.Server(address=None))
    flow.request = http.Request.make("GET", "http://127.0.0.1:9/probe-binary", b"", {"Host": "127.0.0.1:9"})
    flow.response = http.Response.make(200, body, {"Content-Type": "application/octet-stream", "X-Probe": "binary"})
    har = workdir / "mitm-binary-probe.har"
    har.write_text(json.dumps(SaveHar().make_har([flow]), indent=4))
    content = json.loads(har.read_text())["log"]["entries"][0]["response"]["content"]
    case = {"name": "binary body mitmproxy writes as base64", "method": "GET", "target": "/probe-binary"}
    result = {"name": case["name"], "target": case["target"], "mitmproxy_wrote": {"encoding": content.get("encoding"), "text_chars": len(content.get("text") or "")}}
    if content.get("encoding") != "base64" or base64.b64decode(content.get("text", "")) != body:
        report.problem(f"{case['name']}: mitmproxy's HAR writer did not write the bytes as base64: {json.dumps(content)[:200]}")
        result["result"] = "differs"
        return result
    replayed = serve_with_airlock(airlock, str(har), [case])[0]
    expected_fields = [["Content-Type", "application/octet-stream"], ["X-Probe", "binary"]]
    if replayed["status"] != 200 or compared(replayed["fields"]) != expected_fields or replayed["body"] != body:
        report.problem(f"{case['name']}: airlock serve answered {replayed['status']} {compared(replayed['fields'])} with {len(replayed['body'])} bytes; expected 200 {expected_fields} and the {len(body)} bytes")
        result["result"] = "differs"
    else:
        say(f"har_tools mitm-replay: {case['name']}: mitmproxy wrote base64, airlock serve sent the same bytes")
        result["result"] = "same"
    return result


# MARK: - mitm-load


def flow_fields(headers):
    return [[name.decode("utf-8", "surrogateescape"), value.decode("utf-8", "surrogateescape")] for name, value in headers.fields]


def flow_decoded(response):
    try:
        return response.get_content(strict=True)
    except ValueError:
        return None


def entry_body(entry):
    """The body an Airlock entry means: (wire bytes or None, decoded bytes or None). An entry
    marked `_contentEncoded` holds the bytes as sent, still in the Content-Encoding coding
    (base64); any other holds the decoded body (HAR 1.2)."""
    content = entry["response"].get("content", {})
    text = content.get("text") or ""
    data = base64.b64decode(text) if content.get("encoding") == "base64" else text.encode("utf-8")
    coding = field([[h["name"], h["value"]] for h in entry["response"].get("headers", [])], "Content-Encoding")
    if content.get("_contentEncoded") and coding:
        try:
            return data, decode_coding(data, coding)
        except Exception:  # noqa: BLE001 — a coding that does not decode: only the wire bytes are known
            return data, None
    return None, data


def try_decode(data, coding):
    try:
        return decode_coding(data, coding)
    except Exception:  # noqa: BLE001 — not in that coding
        return None


def command_mitm_load(arguments):
    """An Airlock cassette loads in mitmproxy: through its Python API (mitmproxy.io.read_flows_from_paths,
    the reader `mitmdump -r` uses) every entry becomes a flow with the entry's method, URL,
    status, response fields (in order, repeated ones kept) and body; `mitmdump -n -r FILE` reads
    it on the command line and shows one response per entry."""
    from mitmproxy import io as mitm_io

    report = Report("mitm-load", strict=arguments.strict)
    path = arguments.har
    document = json.loads(Path(path).read_text())
    entries = document["log"]["entries"]
    try:
        flows = mitm_io.read_flows_from_paths([path])
    except Exception as error:  # noqa: BLE001
        report.problem(f"mitmproxy could not read {path}: {type(error).__name__}: {error}")
        return report.finish()
    if len(flows) != len(entries):
        report.problem(f"mitmproxy read {len(flows)} flows from {len(entries)} entries")
    results = []
    for index, (entry, flow) in enumerate(zip(entries, flows)):
        results.append(compare_flow_with_entry(index, entry, flow, report))
    if arguments.expect_json:
        expected = json.loads(Path(arguments.expect_json).read_text())
        expected = expected["entries"] if isinstance(expected, dict) else expected
        if len(expected) != len(flows):
            report.problem(f"{arguments.expect_json}: {len(expected)} expected entries, mitmproxy read {len(flows)} flows")
        for index, (want, flow) in enumerate(zip(expected, flows)):
            compare_flow_with_expected(index, want, flow, entries[index] if index < len(entries) else None, report)
    command_line_load(path, len(entries), report)
    report.extra["entries"] = results
    return report.finish()


def compare_flow_with_entry(index, entry, flow, report):
    request, response = entry["request"], entry["response"]
    label = f"entry {index} ({request['method']} {request['url']})"
    result = {"index": index, "method": request["method"], "url": request["url"]}
    differences = []
    if flow.request.method != request["method"]:
        differences.append(f"method {flow.request.method!r}, HAR {request['method']!r}")
    if flow.request.url != request["url"]:
        differences.append(f"URL {flow.request.url!r}, HAR {request['url']!r}")
    if flow.response is None:
        differences.append("no response")
    else:
        if flow.response.status_code != response["status"]:
            differences.append(f"status {flow.response.status_code}, HAR {response['status']}")
        fields = flow_fields(flow.response.headers)
        har_fields = [[h["name"], h["value"]] for h in response.get("headers", [])]
        if fields != har_fields:
            differences.append(f"response fields {fields}, HAR {har_fields}")
        wire, decoded = entry_body(entry)
        raw = flow.response.raw_content or b""
        content = flow_decoded(flow.response)
        coding = field(har_fields, "Content-Encoding")
        if wire is not None:
            # Airlock kept the bytes as sent, in their coding (`_contentEncoded`).
            if raw != wire:
                if content == wire:
                    # Exactly this: mitmproxy read the base64 bytes as the decoded body (HAR 1.2
                    # has no way to say otherwise, and custom fields of another tool are to be
                    # ignored) and encoded them again with the Content-Encoding field.
                    report.finding(
                        f"{label}: `_contentEncoded` body encoded twice: mitmproxy took the {len(wire)} base64 bytes (already {coding}) "
                        f"for the decoded body and {coding}-encoded them again ({len(raw)} bytes on its wire; decoding once gives Airlock's "
                        f"wire bytes, not the body{'' if decoded is None else f' {decoded[:40]!r}'})"
                    )
                    result["result"] = "known difference"
                    result["detail"] = "double-encoded"
                else:
                    differences.append(f"body on the wire {len(raw)} bytes {raw[:60]!r}, HAR (as sent) {len(wire)} bytes {wire[:60]!r}")
        elif content != decoded:
            differences.append(f"body {len(content or b'')} bytes {(content or b'')[:60]!r}, HAR {len(decoded)} bytes {decoded[:60]!r}")
        elif coding:
            result["note"] = f"decoded entry; mitmproxy {coding}-encodes it again on its wire ({len(raw)} bytes)"
    if differences:
        for difference in differences:
            report.problem(f"{label}: {difference}")
        result["result"] = "differs"
        result["detail"] = "; ".join(differences)
    elif "result" not in result:
        result["result"] = "same"
        say(f"har_tools mitm-load: {label}: same method, URL, status, fields and body")
    return result


def compare_flow_with_expected(index, want, flow, entry, report):  # noqa: C901
    """Against what the test expects per entry (in order): its method, request target's path,
    status, fields (framing left out) and body as an HTTP client would see them. A flow with a
    Content-Encoding field the expected response lacks (Airlock serves decoded entries without
    it) is compared by its decoded body."""
    label = f"expected entry {index} ({want.get('name') or want.get('target')})"
    differences = []
    if want.get("method") and flow.request.method != want["method"]:
        differences.append(f"method {flow.request.method!r}, expected {want['method']!r}")
    if want.get("target") and urlsplit(flow.request.url).path != urlsplit(want["target"]).path:
        differences.append(f"path {urlsplit(flow.request.url).path!r}, expected {urlsplit(want['target']).path!r}")
    if flow.response is None:
        differences.append("no response")
    else:
        expected_body = base64.b64decode(want.get("body_base64", ""))
        if flow.response.status_code != want["status"]:
            differences.append(f"status {flow.response.status_code}, expected {want['status']}")
        fields = compared(flow_fields(flow.response.headers))
        expected_fields = compared(want["fields"])
        raw = flow.response.raw_content or b""
        if fields == expected_fields:
            if raw != expected_body:
                content = flow_decoded(flow.response)
                coding = field(fields, "Content-Encoding")
                if coding and content == expected_body and entry is not None and entry["response"].get("content", {}).get("_contentEncoded"):
                    # The double encoding, reported once (as a finding) by the comparison with the entry.
                    say(f"har_tools mitm-load: {label}: as expected but for the double {coding} encoding (the finding above)")
                    return
                elif coding and content is not None and content == try_decode(expected_body, coding):
                    # The entry's text is the decoded body (HAR 1.2; Airlock keeps the server's
                    # bytes beside it in `_encodedBody`): mitmproxy encodes that content itself,
                    # with other bytes than the server's, and the content is the same.
                    say(f"har_tools mitm-load: {label}: same content; mitmproxy {coding}-encoded it itself")
                    return
                else:
                    differences.append(f"body on the wire {len(raw)} bytes {raw[:60]!r}, expected {len(expected_body)} bytes {expected_body[:60]!r}")
        elif compared(fields, ("content-encoding",)) == expected_fields and field(fields, "Content-Encoding"):
            content = flow_decoded(flow.response)
            if content != expected_body:
                differences.append(f"decoded body {len(content or b'')} bytes {(content or b'')[:60]!r}, expected {len(expected_body)} bytes {expected_body[:60]!r}")
        else:
            differences.append(f"fields {fields}, expected {expected_fields}")
    for difference in differences:
        report.problem(f"{label}: {difference}")
    if not differences:
        say(f"har_tools mitm-load: {label}: as expected")


def command_line_load(path, count, report):
    """`mitmdump -n -r FILE`: reads the flows without a proxy and prints each one."""
    arguments = [mitmdump_path(), "-n", "-r", path, "--set", f"confdir={mitm_confdir()}", "--set", "flow_detail=1"]
    try:
        lines = run_logged(arguments, "mitmdump -n -r", limit=STEP_LIMIT * 2, prefix="  mitmdump: ")
    except ToolError as error:
        report.problem(f"mitmdump -n -r {path}: {error}")
        return
    responses = [line for line in lines if re.match(r"^\s+<< \d{3}\b", line)]
    if len(responses) != count:
        report.problem(f"mitmdump -n -r {path}: showed {len(responses)} responses for {count} entries")


# MARK: - Main


def parser():
    top = argparse.ArgumentParser(prog="har_tools.py", description=__doc__.split("\n\n")[0])
    commands = top.add_subparsers(dest="command", required=True)

    command = commands.add_parser("install", help="install (or reuse) haralyzer and mitmproxy in .build/har-tools and print their versions")
    command.set_defaults(run=command_install)

    command = commands.add_parser("check", help="haralyzer parses each file and it passes the HAR 1.2 field check")
    command.add_argument("files", nargs="+", metavar="FILE.har")
    command.add_argument("--entries", type=int, help="the number of entries each file must hold")
    command.set_defaults(run=command_check)

    def upstream_options(command):
        command.add_argument("--upstream", type=int, help="the port of a running fidelity upstream (default: start Tests/MockServerTests/Upstream/fidelity_upstream.py)")
        command.add_argument("--cases", help="a JSON file with the cases: [{name, method, target, headers: [[name, value]], body}] (default: the fidelity table)")

    command = commands.add_parser("mitm-record", help="record the cases through mitmdump (reverse proxy, hardump) into a HAR file")
    upstream_options(command)
    command.add_argument("--out", required=True, metavar="FILE.har")
    command.set_defaults(run=command_mitm_record)

    command = commands.add_parser("airlock-record", help="record the cases through `airlock record --target` into a cassette (for runs by hand)")
    upstream_options(command)
    command.add_argument("--airlock", required=True, help="the airlock executable")
    command.add_argument("--out", required=True, metavar="FILE.har")
    command.set_defaults(run=command_airlock_record)

    command = commands.add_parser("mitm-replay", help="record the cases with mitmdump, replay the HAR with `airlock serve`, compare with the upstream's answers")
    upstream_options(command)
    command.add_argument("--airlock", required=True, help="the airlock executable")
    command.add_argument("--workdir", required=True, help="a folder for mitm.har and the answers (live.json, replayed.json)")
    command.add_argument("--strict", action="store_true", help="known differences (findings) fail too")
    command.set_defaults(run=command_mitm_replay)

    command = commands.add_parser("mitm-load", help="mitmproxy loads a HAR file Airlock wrote: every entry becomes the same exchange")
    command.add_argument("har", metavar="FILE.har")
    command.add_argument("--expect-json", help="a JSON file: [{name, method, target, status, fields: [[name, value]], body_base64}], one per entry in order")
    command.add_argument("--strict", action="store_true", help="known differences (findings) fail too")
    command.set_defaults(run=command_mitm_load)
    return top


def command_install(arguments):
    import haralyzer  # noqa: F401
    from importlib.metadata import version

    from mitmproxy import version as mitm_version

    report = Report("install")
    report.extra.update({"venv": str(VENV), "python": sys.version.split()[0], "haralyzer": version("haralyzer"), "mitmproxy": mitm_version.VERSION})
    return report.finish()


def main():
    return toolenv.main(ENVIRONMENT, parser, __file__)


if __name__ == "__main__":
    sys.exit(main())
