#!/usr/bin/env python3
"""Drives a WireMock admin API with the client no one here wrote: PyPI's `wiremock` 2.7.0.

    python3 Tests/Tools/wiremock_client.py admin --base-url http://127.0.0.1:PORT [--root-dir DIR]
    python3 Tests/Tools/wiremock_client.py admin --wiremock-jar .build/benchmarks/wiremock-standalone.jar
    python3 Tests/Tools/wiremock_client.py side-by-side --other 'CMD {root} {port}' ROOT...
    python3 Tests/Tools/wiremock_client.py install

(`--help` lists every subcommand; Tests/Tools/README.md says what each one checks.)

It installs what it needs itself, once, into a virtual environment under `.build/wiremock-client/`
(the `wiremock` client from PyPI at the version pinned below, every dependency pinned too), then
runs again inside it. It writes nowhere else but a temporary folder it removes (`--wiremock-jar`)
and, through the server it drives, the server's own root folder (`POST /__admin/mappings/save`).

Made for a test to drive as a child process: everything goes to standard output (standard error
is joined to it), a line at least every 15 seconds while it works, and the last line is one JSON
object: {"tool": "wiremock_client", "command": ..., "ok": true|false, "problems": [...],
"findings": [...], "checks": N, ...}. `problems` say what failed and why; `findings` are known
differences between the client and WireMock, each checked exactly as described (`--strict` turns
them into problems). Exit status: 0 ok, 1 problems, 2 the client could not be installed or the
command could not run.
"""

import argparse
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import uuid
from pathlib import Path

sys.dont_write_bytecode = True  # nothing beside this script in the source tree

# MARK: - Installation

ROOT = Path(__file__).resolve().parents[2]
HOME = Path(os.environ.get("WIREMOCK_CLIENT_HOME") or ROOT / ".build" / "wiremock-client")
VENV = HOME / "venv"
VENV_PYTHON = VENV / "bin" / "python"
TOOL = "wiremock_client"

# The version this script was verified with (2.7.0, the newest release, whose wheel also carries
# WireMock 2.35.1's standalone jar), and every package it pulled in, pinned as constraints so that a
# fresh machine installs the same set.
REQUIREMENTS = ["wiremock==2.7.0"]
CONSTRAINTS = """\
certifi==2026.10.19.post1
charset-normalizer==3.5.2
idna==3.20
importlib-resources==5.13.0
requests==2.34.2
urllib3==2.8.0
"""
sys.path.insert(0, str(Path(__file__).resolve().parent))
import toolenv  # noqa: E402  (Tests/Tools' shared installation and result line)
from toolenv import HEARTBEAT, INSTALL_LIMIT, ToolError, die_with_parent, say  # noqa: E402,F401

ENVIRONMENT = toolenv.Environment(TOOL, HOME, REQUIREMENTS, CONSTRAINTS, "import wiremock.client; print('wiremock', wiremock.__version__)", what="the client")
VENV_PYTHON = ENVIRONMENT.python

# Hang guards, not performance limits (see toolenv): a step that takes longer is stuck.
START_LIMIT = 45  # WireMock's start-up (about 2 s here), a child's exit
CALL_LIMIT = 30  # one HTTP exchange


def inside_venv():
    return ENVIRONMENT.inside()


def run_logged(arguments, what, limit=INSTALL_LIMIT, prefix="  "):
    return ENVIRONMENT.run_logged(arguments, what, limit=limit, prefix=prefix)


def ensure_client():
    ENVIRONMENT.ensure()


class Report(toolenv.Report):
    def __init__(self, command, strict=False):
        super().__init__(TOOL, command, strict)


def fail_to_run(command, message):
    return toolenv.fail_to_run(TOOL, command, message)


# MARK: - Plain HTTP to the mocked paths


class Answer:
    def __init__(self, status, headers, body, seconds):
        self.status = status
        self.headers = headers  # [(name, value)] as sent
        self.body = body
        self.seconds = seconds

    def header(self, name):
        return next((value for key, value in self.headers if key.lower() == name.lower()), None)

    def json(self):
        return json.loads(self.body.decode("utf-8"))


def send(base_url, method, target, headers=None, body=None):
    """One request with http.client (no redirect followed, nothing added but Host and
    Content-Length), on its own connection."""
    host, port = base_url.split("//", 1)[1].rstrip("/").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=CALL_LIMIT)
    started = time.monotonic()
    try:
        data = body.encode("utf-8") if isinstance(body, str) else body
        connection.request(method, target, body=data, headers=headers or {})
        response = connection.getresponse()
        payload = response.read()
        return Answer(response.status, response.getheaders(), payload, time.monotonic() - started)
    finally:
        connection.close()


# MARK: - WireMock standalone


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class WireMockJar:
    """WireMock standalone on a free loopback port with its own root folder (`--root-dir`), as
    the PyPI client's own `WireMockServer` starts it (`--local-response-templating`)."""

    def __init__(self, jar, root_dir, java="java"):
        self.jar = jar
        self.root_dir = Path(root_dir)
        self.java = java
        self.port = None
        self.process = None
        self.lines = []

    def start(self):
        (self.root_dir / "mappings").mkdir(parents=True, exist_ok=True)
        (self.root_dir / "__files").mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        arguments = [
            self.java, "-jar", str(self.jar), "--port", str(self.port), "--bind-address", "127.0.0.1", "--root-dir", str(self.root_dir),
            "--local-response-templating", "--disable-banner",
        ]
        say(f"{TOOL}: starting WireMock: {' '.join(arguments)}")
        self.process = subprocess.Popen(arguments, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace", preexec_fn=die_with_parent)
        threading.Thread(target=self._pump, daemon=True).start()
        started = time.monotonic()
        announced = started
        while True:
            if self.process.poll() is not None:
                raise ToolError(f"WireMock exited with status {self.process.returncode} before answering; its output:\n" + "\n".join(self.lines[-30:]))
            try:
                if send(self.base_url, "GET", "/__admin/mappings").status == 200:
                    say(f"{TOOL}: WireMock answers on {self.base_url} ({time.monotonic() - started:.1f} s)")
                    return self
            except OSError:
                pass
            if time.monotonic() - started > START_LIMIT:
                self.stop()
                raise ToolError(f"WireMock did not answer within {START_LIMIT} s (a hang guard); its output:\n" + "\n".join(self.lines[-30:]))
            if time.monotonic() - announced > 10:
                announced = time.monotonic()
                say(f"{TOOL}: waiting for WireMock ({int(announced - started)} s)")
            time.sleep(0.2)

    def _pump(self):
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.port}"

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(START_LIMIT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# MARK: - The admin checks

SECTIONS = ["mappings", "update", "delete", "reset", "journal", "near-misses", "scenarios", "save", "metadata", "settings"]
PREFIX = "/wiremock-client-check"  # every mocked path this script makes starts so


class AdminCheck:
    """Each section drives the server through the client's own API and checks every value that
    comes back against what WireMock 2.35.1 does, then checks the effect with real requests."""

    def __init__(self, base_url, root_dir, report):
        from wiremock import client  # noqa: F401 — imported inside the virtual environment
        from wiremock.constants import Config

        self.client = client
        self.base_url = base_url.rstrip("/")
        self.root_dir = Path(root_dir) if root_dir else None
        self.report = report
        Config.base_url = self.base_url + "/__admin"
        Config.timeout = CALL_LIMIT
        self.baseline = None

    # helpers

    def mapping(self, method, url_field, url, status=200, body=None, headers=None, **request):
        c = self.client
        mapping_request = c.MappingRequest(method=method, **{url_field: url}, **request)
        mapping_response = c.MappingResponse(status=status, body=body, headers=headers)
        return c.Mapping(request=mapping_request, response=mapping_response)

    def create(self, mapping, what):
        created = self.client.Mappings.create_mapping(mapping)
        check = self.report.check
        check(isinstance(created, self.client.Mapping), f"create_mapping({what}) returns a Mapping", type(created))
        check(is_uuid(created.id), f"create_mapping({what}): the returned mapping's id is a UUID", created.id)
        return created

    def total(self):
        return self.client.Mappings.retrieve_all_mappings().meta.total

    def ids(self):
        return [m.id for m in self.client.Mappings.retrieve_all_mappings().mappings]

    def expect_status(self, call, status, what):
        """The client raises for every status but 200, 201 and 204: the exception's class and
        status_code say which status the server sent."""
        try:
            call()
        except self.client.ApiException as error:
            return self.report.check(error.status_code == status, f"{what}: the server answers {status} (the client raises {type(error).__name__})", f"{type(error).__name__} {error.status_code}")
        return self.report.check(False, f"{what}: the server answers {status} (the client raises)", "no exception: a 2xx answer")

    # sections

    def start(self):
        r = self.report
        r.section = "start"
        c = self.client
        r.check(c.Mappings.reset_mappings().status_code == 200, "POST /mappings/reset answers 200")
        r.check(c.Requests.reset_request_journal().status_code == 200, "POST /requests/reset answers 200")
        r.check(c.Scenarios.reset_all_scenarios().status_code == 200, "POST /scenarios/reset answers 200")
        everything = c.Mappings.retrieve_all_mappings()
        r.check(isinstance(everything, c.AllMappings), "retrieve_all_mappings returns AllMappings", type(everything))
        r.check(isinstance(everything.meta, c.MappingMeta) and isinstance(everything.meta.total, int), "GET /mappings has meta.total, a number", everything.meta)
        r.equal(everything.meta.total, len(everything.mappings), "meta.total after a reset (the mappings on disk) = len(mappings)")
        leftovers = [m for m in everything.mappings if str(getattr(m.request, "url", None) or getattr(m.request, "url_path", None) or "").startswith(PREFIX)]
        r.equal(len(leftovers), 0, f"mappings under {PREFIX} after a reset")
        self.baseline = everything.meta.total
        say(f"{TOOL}: {self.baseline} mapping(s) on disk")

    def section_mappings(self):
        """Create, list, get by id; the mocked path answers as mapped."""
        r = self.report
        c = self.client
        request = c.MappingRequest(method="GET", url_path=PREFIX + "/hello", query_parameters={"lang": {"equalTo": "en"}}, headers={"X-Client": {"equalTo": "check"}})
        response = c.MappingResponse(status=200, body="hello", headers={"Content-Type": "text/plain", "X-Check": "one"})
        mapping = c.Mapping(priority=3, request=request, response=response)
        created = self.create(mapping, "GET urlPath with a query and a header matcher")
        r.equal(created.request.url_path, PREFIX + "/hello", "the created mapping's request.urlPath")
        r.equal(created.request.method, "GET", "the created mapping's request.method")
        r.equal(created.request.query_parameters, {"lang": {"equalTo": "en"}}, "the created mapping's request.queryParameters")
        r.equal(created.request.headers, {"X-Client": {"equalTo": "check"}}, "the created mapping's request.headers")
        r.equal(created.response.status, 200, "the created mapping's response.status")
        r.equal(created.response.body, "hello", "the created mapping's response.body")
        r.equal(created.response.headers, {"Content-Type": "text/plain", "X-Check": "one"}, "the created mapping's response.headers")
        r.equal(created.priority, 3, "the created mapping's priority")
        self.hello = created

        everything = c.Mappings.retrieve_all_mappings()
        r.equal(everything.meta.total, self.baseline + 1, "meta.total after one create")
        r.equal(len(everything.mappings), self.baseline + 1, "len(mappings) after one create")
        r.check(all(isinstance(m, c.Mapping) for m in everything.mappings), "every listed mapping reads as a Mapping")
        listed = [m for m in everything.mappings if m.id == created.id]
        if r.equal(len(listed), 1, "listed mappings with the created id"):
            r.equal(listed[0].response.body, "hello", "the listed mapping's response.body")
            r.equal(listed[0].request.url_path, PREFIX + "/hello", "the listed mapping's request.urlPath")
        r.equal(everything.mappings[0].id if everything.mappings else None, created.id, "the newest mapping is listed first")

        fetched = c.Mappings.retrieve_mapping(created.id)
        r.equal(fetched.id, created.id, "retrieve_mapping(id).id")
        r.equal(fetched.request.query_parameters, {"lang": {"equalTo": "en"}}, "retrieve_mapping(id).request.queryParameters")
        r.equal(fetched.response.headers, {"Content-Type": "text/plain", "X-Check": "one"}, "retrieve_mapping(id).response.headers")
        self.expect_status(lambda: c.Mappings.retrieve_mapping(str(uuid.uuid4())), 404, "GET /mappings/{an unknown id}")

        answer = send(self.base_url, "GET", PREFIX + "/hello?lang=en", {"X-Client": "check"})
        r.equal(answer.status, 200, "GET /hello?lang=en with the header: status")
        r.equal(answer.body, b"hello", "GET /hello?lang=en with the header: body")
        r.equal(answer.header("X-Check"), "one", "GET /hello?lang=en with the header: X-Check")
        r.equal(answer.header("Content-Type"), "text/plain", "GET /hello?lang=en with the header: Content-Type")
        r.equal(send(self.base_url, "GET", PREFIX + "/hello?lang=de", {"X-Client": "check"}).status, 404, "GET /hello?lang=de (the query does not match): status")
        r.equal(send(self.base_url, "GET", PREFIX + "/hello?lang=en").status, 404, "GET /hello?lang=en without the header: status")

    def section_update(self):
        """PUT /mappings/{id} replaces the mapping; the path answers the new response."""
        r = self.report
        c = self.client
        hello = c.Mappings.retrieve_mapping(self.hello.id)
        hello.response = c.MappingResponse(status=201, body="hello again", headers={"Content-Type": "text/plain", "X-Check": "two"})
        updated = c.Mappings.update_mapping(hello)
        r.check(isinstance(updated, c.Mapping), "update_mapping returns a Mapping", type(updated))
        r.equal(updated.id, self.hello.id, "update_mapping keeps the id")
        r.equal(updated.response.body, "hello again", "the updated mapping's response.body")
        r.equal(updated.response.status, 201, "the updated mapping's response.status")
        r.equal(c.Mappings.retrieve_mapping(self.hello.id).response.body, "hello again", "retrieve_mapping after the update: response.body")
        r.equal(self.total(), self.baseline + 1, "meta.total after the update (replaced, not added)")
        answer = send(self.base_url, "GET", PREFIX + "/hello?lang=en", {"X-Client": "check"})
        r.equal((answer.status, answer.body, answer.header("X-Check")), (201, b"hello again", "two"), "the path after the update: status, body, X-Check")
        unknown = c.Mapping(request=c.MappingRequest(method="GET", url=PREFIX + "/nowhere"), response=c.MappingResponse(status=200))
        unknown._id = str(uuid.uuid4())
        self.expect_status(lambda: c.Mappings.update_mapping(unknown), 404, "PUT /mappings/{an unknown id}")

    def section_delete(self):
        """DELETE /mappings/{id} removes it; the path answers 404 again."""
        r = self.report
        c = self.client
        response = c.Mappings.delete_mapping(self.hello.id)
        r.equal(response.status_code, 200, "DELETE /mappings/{id}: status")
        self.expect_status(lambda: c.Mappings.retrieve_mapping(self.hello.id), 404, "GET /mappings/{the deleted id}")
        self.expect_status(lambda: c.Mappings.delete_mapping(self.hello.id), 404, "DELETE /mappings/{the deleted id} again")
        r.equal(self.total(), self.baseline, "meta.total after the delete")
        r.equal(send(self.base_url, "GET", PREFIX + "/hello?lang=en", {"X-Client": "check"}).status, 404, "the path after the delete: status")

    def section_reset(self):
        """Several mappings, then POST /mappings/reset and DELETE /mappings."""
        r = self.report
        c = self.client
        created = []
        for index in range(3):
            request = c.MappingRequest(method="POST", url=f"{PREFIX}/many/{index}", body_patterns=[{"equalToJson": {"index": index}, "ignoreExtraElements": True}])
            response = c.MappingResponse(status=200 + index, json_body={"index": index, "items": ["a", "b"]}, headers={"Content-Type": "application/json"})
            created.append(self.create(c.Mapping(request=request, response=response), f"POST /many/{index} with equalToJson"))
        r.equal(created[1].response.json_body, {"index": 1, "items": ["a", "b"]}, "the created mapping's response.jsonBody")
        r.equal(created[1].request.body_patterns, [{"equalToJson": {"index": 1}, "ignoreExtraElements": True}], "the created mapping's request.bodyPatterns")
        r.equal(self.total(), self.baseline + 3, "meta.total after three creates")
        answer = send(self.base_url, "POST", f"{PREFIX}/many/2", {"Content-Type": "application/json"}, json.dumps({"extra": True, "index": 2}))
        r.equal(answer.status, 202, "POST /many/2 with matching JSON (an extra element): status")
        r.equal(answer.json() if answer.status == 202 else None, {"index": 2, "items": ["a", "b"]}, "POST /many/2: the jsonBody")
        r.equal(send(self.base_url, "POST", f"{PREFIX}/many/2", {"Content-Type": "application/json"}, '{"index": 3}').status, 404, "POST /many/2 with other JSON: status")
        r.equal(c.Mappings.reset_mappings().status_code, 200, "POST /mappings/reset: status")
        r.equal(self.total(), self.baseline, "meta.total after the reset")
        r.check(not set(m.id for m in created) & set(self.ids()), "no created mapping is listed after the reset")
        r.equal(send(self.base_url, "POST", f"{PREFIX}/many/2", {"Content-Type": "application/json"}, '{"index": 2}').status, 404, "POST /many/2 after the reset: status")
        if self.baseline:
            # WireMock 2.35.1 answers DELETE /mappings with 500 (NotWritableException) when a
            # mapping on disk came from a file of several mappings, so it is tried on an empty root only.
            say("  (mappings on disk: DELETE /mappings is not tried)")
            return
        for index in range(2):
            self.create(self.mapping("GET", "url", f"{PREFIX}/gone/{index}"), f"GET /gone/{index}")
        r.equal(c.Mappings.delete_all_mappings().status_code, 200, "DELETE /mappings: status")
        everything = c.Mappings.retrieve_all_mappings()
        r.equal((everything.meta.total, len(everything.mappings)), (0, 0), "meta.total and len(mappings) after DELETE /mappings")
        r.equal(c.Mappings.reset_mappings().status_code, 200, "POST /mappings/reset: status")
        r.equal(self.total(), self.baseline, "meta.total after the reset (the mappings on disk are back)")

    def section_journal(self):
        """The request journal: count, find, all, one, unmatched, reset."""
        r = self.report
        c = self.client
        r.equal(c.Requests.reset_request_journal().status_code, 200, "POST /requests/reset: status")
        request = c.MappingRequest(method="POST", url=PREFIX + "/items", body_patterns=[{"equalToJson": '{"name": "milk"}'}], headers={"X-Trace": {"matches": "t-[0-9]+"}})
        response = c.MappingResponse(status=201, body='{"id": 7}', headers={"Content-Type": "application/json", "Location": PREFIX + "/items/7"})
        created = self.create(c.Mapping(request=request, response=response), "POST /items with equalToJson and a header regex")
        for trace in ("t-1", "t-2"):
            answer = send(self.base_url, "POST", PREFIX + "/items", {"Content-Type": "application/json", "X-Trace": trace}, '{"name":"milk"}')
            r.equal((answer.status, answer.body, answer.header("Location")), (201, b'{"id": 7}', PREFIX + "/items/7"), f"POST /items ({trace}): status, body, Location")
        r.equal(send(self.base_url, "GET", PREFIX + "/items").status, 404, "GET /items (unmatched): status")
        r.equal(send(self.base_url, "GET", PREFIX + "/unknown?q=1").status, 404, "GET /unknown?q=1 (unmatched): status")

        Pattern = c.NearMissMatchPatternRequest
        counted = c.Requests.get_matching_request_count(Pattern(method="POST", url=PREFIX + "/items"))
        r.check(isinstance(counted, c.RequestCountResponse), "get_matching_request_count returns a RequestCountResponse", type(counted))
        r.equal(counted.count, 2, "POST /requests/count {method POST, url /items}: count")
        r.equal(c.Requests.get_matching_request_count(Pattern(method="GET", url=PREFIX + "/items")).count, 1, "POST /requests/count {method GET, url /items}: count")
        r.equal(c.Requests.get_matching_request_count(Pattern(method="ANY", url_path_pattern=PREFIX + "/.*")).count, 4, "POST /requests/count {method ANY, urlPathPattern}: count")
        r.equal(c.Requests.get_matching_request_count(Pattern(method="POST", url=PREFIX + "/items", headers={"X-Trace": {"equalTo": "t-2"}})).count, 1, "POST /requests/count with a header matcher: count")
        r.equal(c.Requests.get_matching_request_count(Pattern(method="DELETE", url=PREFIX + "/items")).count, 0, "POST /requests/count for a request never sent: count")

        found = c.Requests.get_matching_requests(Pattern(method="POST", url=PREFIX + "/items"))
        r.check(isinstance(found, c.RequestResponseFindResponse), "get_matching_requests returns a RequestResponseFindResponse", type(found))
        r.equal(len(found.requests), 2, "POST /requests/find {POST /items}: len(requests)")
        r.equal(sorted((q.method, q.url) for q in found.requests), [("POST", PREFIX + "/items")] * 2, "POST /requests/find: each request's method and url")
        r.equal([json.loads(q.body) if q.body else q.body for q in found.requests], [{"name": "milk"}] * 2, "POST /requests/find: each request's body (JSON)")
        r.equal(sorted(header_value(q.headers, "X-Trace") for q in found.requests), ["t-1", "t-2"], "POST /requests/find: each request's X-Trace header")
        r.check(all(isinstance(q.logged_date, int) and q.logged_date > 1_500_000_000_000 for q in found.requests), "POST /requests/find: loggedDate is epoch milliseconds", [q.logged_date for q in found.requests])
        r.check(all(str(q.absolute_url or "").endswith(PREFIX + "/items") and str(q.absolute_url).startswith("http://") for q in found.requests), "POST /requests/find: absoluteUrl", [q.absolute_url for q in found.requests])

        # `parameters={}` given each time: the client's default dictionary is shared between calls,
        # and `limit` written into it would stay for every later call.
        everything = c.Requests.get_all_received_requests(parameters={})
        r.check(isinstance(everything, c.RequestResponseAll), "get_all_received_requests returns RequestResponseAll", type(everything))
        r.equal(everything.meta.total if everything.meta else None, 4, "GET /requests: meta.total")
        r.equal(len(everything.requests), 4, "GET /requests: len(requests)")
        r.equal(everything.request_journal_disabled, False, "GET /requests: requestJournalDisabled")
        r.check(all(isinstance(e, c.RequestResponse) and is_uuid(e.id) for e in everything.requests), "GET /requests: every entry reads as a RequestResponse with a UUID id", [e.id for e in everything.requests])
        r.equal([(e.request.method, e.request.url) for e in everything.requests], [("GET", PREFIX + "/unknown?q=1"), ("GET", PREFIX + "/items"), ("POST", PREFIX + "/items"), ("POST", PREFIX + "/items")], "GET /requests: method and url of each, newest first")
        r.equal([e.response_definition.status for e in everything.requests], [404, 404, 201, 201], "GET /requests: responseDefinition.status of each")
        r.check([e.response_definition.from_configured_stub is False for e in everything.requests] == [True, True, False, False], "GET /requests: responseDefinition.fromConfiguredStub false for the unmatched (WireMock leaves it out for the matched)", [e.response_definition.from_configured_stub for e in everything.requests])
        limited = c.Requests.get_all_received_requests(limit=2, parameters={})
        r.equal([e.request.url for e in limited.requests], [PREFIX + "/unknown?q=1", PREFIX + "/items"], "GET /requests?limit=2: the two newest")
        r.equal(limited.meta.total, 4, "GET /requests?limit=2: meta.total (all of them)")

        one = c.Requests.get_request(everything.requests[2].id)
        r.check(isinstance(one, c.RequestResponse), "get_request(id) returns a RequestResponse", type(one))
        r.equal((one.id, one.request.method, one.request.url), (everything.requests[2].id, "POST", PREFIX + "/items"), "GET /requests/{id}: id, method, url")
        r.equal(one.response_definition.status, 201, "GET /requests/{id}: responseDefinition.status")
        self.expect_status(lambda: c.Requests.get_request(str(uuid.uuid4())), 404, "GET /requests/{an unknown id}")

        unmatched = c.Requests.get_unmatched_requests()
        r.check(isinstance(unmatched, c.RequestResponseFindResponse), "get_unmatched_requests returns a RequestResponseFindResponse", type(unmatched))
        r.equal(sorted((q.method, q.url) for q in unmatched.requests), [("GET", PREFIX + "/items"), ("GET", PREFIX + "/unknown?q=1")], "GET /requests/unmatched: method and url of each")
        self.unmatched_urls = [PREFIX + "/items", PREFIX + "/unknown?q=1"]
        self.items_mapping = created

    def section_near_misses(self):
        """Near misses of the journal's unmatched requests, of a request, of a pattern. (A request
        posted to /near-misses/request has headers: WireMock 2.35.1 answers 500, a
        NullPointerException, for one without them when a stub has a header matcher.)"""
        r = self.report
        c = self.client
        misses = c.Requests.get_unmatched_requests_near_misses()
        r.check(isinstance(misses, c.NearMissMatchResponse), "get_unmatched_requests_near_misses returns a NearMissMatchResponse", type(misses))
        items = [m for m in misses.near_misses if m.request and m.request.url == PREFIX + "/items"]
        r.check(items, "GET /requests/unmatched/near-misses: a near miss for GET /items", [m.request.url for m in misses.near_misses])
        r.check(all(isinstance(m.match_result.distance, float) and 0 < m.match_result.distance < 1 for m in misses.near_misses), "GET /requests/unmatched/near-misses: every matchResult.distance is a number between 0 and 1", [m.match_result.distance for m in misses.near_misses])
        r.check(all(m.request.url in self.unmatched_urls and m.request.method == "GET" for m in misses.near_misses), "GET /requests/unmatched/near-misses: every request is an unmatched one", [(m.request.method, m.request.url) for m in misses.near_misses])
        r.check(all(m.request_pattern is None for m in misses.near_misses), "GET /requests/unmatched/near-misses: no requestPattern (WireMock sends the stubMapping instead)")
        for url in self.unmatched_urls:
            distances = [m.match_result.distance for m in misses.near_misses if m.request.url == url]
            r.check(distances == sorted(distances), f"GET /requests/unmatched/near-misses: for GET {url}, nearest first", distances)

        by_request = c.NearMisses.find_nearest_misses_by_request(c.NearMissMatchRequest(method="GET", url=PREFIX + "/items", headers={"Accept": "*/*"}))
        r.check(isinstance(by_request, c.NearMissMatchResponse), "find_nearest_misses_by_request returns a NearMissMatchResponse", type(by_request))
        r.check(by_request.near_misses, "POST /near-misses/request {GET /items}: at least one near miss", by_request.near_misses)
        if by_request.near_misses:
            nearest = by_request.near_misses[0]
            r.equal((nearest.request.method, nearest.request.url), ("GET", PREFIX + "/items"), "POST /near-misses/request: nearMisses[0].request echoes the request")
            r.check(0 < nearest.match_result.distance < 1, "POST /near-misses/request: nearMisses[0].matchResult.distance between 0 and 1", nearest.match_result.distance)
            distances = [m.match_result.distance for m in by_request.near_misses]
            r.check(distances == sorted(distances), "POST /near-misses/request: nearest first", distances)
            exact = c.NearMisses.find_nearest_misses_by_request(c.NearMissMatchRequest(method="POST", url=PREFIX + "/items", headers={"X-Trace": "t-9"}, body='{"name": "bread"}'))
            r.check(exact.near_misses and exact.near_misses[0].match_result.distance < nearest.match_result.distance, "POST /near-misses/request: POST /items with another body is nearer than GET /items", [m.match_result.distance for m in exact.near_misses])

        by_pattern = c.NearMisses.find_nearest_misses_by_request_pattern(c.NearMissMatchPatternRequest(method="GET", url=PREFIX + "/itemz"))
        r.check(isinstance(by_pattern, c.NearMissMatchResponse), "find_nearest_misses_by_request_pattern returns a NearMissMatchResponse", type(by_pattern))
        r.check(by_pattern.near_misses, "POST /near-misses/request-pattern {GET /itemz}: at least one near miss", by_pattern.near_misses)
        if by_pattern.near_misses:
            nearest = by_pattern.near_misses[0]
            r.equal((nearest.request.method, nearest.request.url), ("GET", PREFIX + "/items"), "POST /near-misses/request-pattern: the nearest journal request is GET /items")
            r.equal((nearest.request_pattern.method, nearest.request_pattern.url) if nearest.request_pattern else None, ("GET", PREFIX + "/itemz"), "POST /near-misses/request-pattern: requestPattern echoes the pattern")
            r.check(0 < nearest.match_result.distance < 1, "POST /near-misses/request-pattern: matchResult.distance between 0 and 1", nearest.match_result.distance)

        r.equal(c.Requests.reset_request_journal().status_code, 200, "POST /requests/reset: status")
        everything = c.Requests.get_all_received_requests(parameters={})
        r.equal((everything.meta.total, len(everything.requests)), (0, 0), "GET /requests after the reset: meta.total and len(requests)")
        r.equal(c.Requests.get_matching_request_count(c.NearMissMatchPatternRequest(method="ANY", url_path_pattern=PREFIX + "/.*")).count, 0, "POST /requests/count after the reset")
        r.equal(c.Requests.get_unmatched_requests().requests, [], "GET /requests/unmatched after the reset")
        r.equal(c.Requests.get_unmatched_requests_near_misses().near_misses, [], "GET /requests/unmatched/near-misses after the reset")
        r.equal(c.Mappings.delete_mapping(self.items_mapping.id).status_code, 200, "DELETE /mappings/{id} of POST /items: status")

    def section_scenarios(self):
        """A scenario stepped through by real requests, then POST /scenarios/reset."""
        r = self.report
        c = self.client
        name = "wiremock-client check list"
        steps = [
            ("GET", "Started", None, 200, '{"items": []}'),
            ("POST", "Started", "Milk added", 201, "added"),
            ("GET", "Milk added", None, 200, '{"items": ["milk"]}'),
            ("DELETE", "Milk added", "Started", 204, None),
        ]
        created = []
        for method, required, new, status, body in steps:
            mapping = c.Mapping(
                scenario_name=name, required_scenario_state=required, new_scenario_state=new,
                request=c.MappingRequest(method=method, url=PREFIX + "/list"), response=c.MappingResponse(status=status, body=body),
            )
            one = self.create(mapping, f"{method} /list in state {required}")
            r.equal((one.scenario_name, one.required_scenario_state, one.new_scenario_state), (name, required, new), f"the created mapping's scenarioName, requiredScenarioState, newScenarioState ({method} in {required})")
            created.append(one)

        def get():
            answer = send(self.base_url, "GET", PREFIX + "/list")
            return (answer.status, answer.body.decode())

        r.equal(get(), (200, '{"items": []}'), "GET /list in state Started")
        r.equal(send(self.base_url, "POST", PREFIX + "/list", {}, "milk").status, 201, "POST /list (to Milk added): status")
        r.equal(get(), (200, '{"items": ["milk"]}'), "GET /list in state Milk added")
        r.equal(get(), (200, '{"items": ["milk"]}'), "GET /list again (a GET keeps the state)")
        r.equal(send(self.base_url, "POST", PREFIX + "/list", {}, "milk").status, 404, "POST /list in state Milk added (no mapping for it): status")
        r.equal(c.Scenarios.reset_all_scenarios().status_code, 200, "POST /scenarios/reset: status")
        r.equal(get(), (200, '{"items": []}'), "GET /list after the reset (back to Started)")
        r.equal(send(self.base_url, "POST", PREFIX + "/list", {}, "milk").status, 201, "POST /list after the reset: status")
        r.equal(send(self.base_url, "DELETE", PREFIX + "/list").status, 204, "DELETE /list (back to Started): status")
        r.equal(get(), (200, '{"items": []}'), "GET /list after DELETE")
        for one in created:
            c.Mappings.delete_mapping(one.id)
        r.equal(self.total(), self.baseline, "meta.total after deleting the scenario's mappings")

    def section_save(self):
        """POST /mappings/save writes the persistent mappings into the root folder."""
        r = self.report
        c = self.client
        mapping = self.mapping("GET", "url", PREFIX + "/saved", body="saved")
        mapping.persistent = True
        created = self.create(mapping, "a persistent GET /saved")
        r.equal(created.persistent, True, "the created mapping's persistent")
        response = c.Mappings.persist_mappings()
        r.equal(response.status_code, 200, "POST /mappings/save: status")
        if self.root_dir is not None:
            files = saved_files(self.root_dir, created.id)
            r.equal(len(files), 1, f"files in {self.root_dir / 'mappings'} holding the saved mapping's id after POST /mappings/save")
            if files:
                saved = json.loads(files[0].read_text())
                r.equal((saved.get("request", {}).get("url"), saved.get("response", {}).get("body")), (PREFIX + "/saved", "saved"), "the saved file's request.url and response.body")
        else:
            say("  (no --root-dir: the saved file is not looked for)")
        r.equal(c.Mappings.delete_mapping(created.id).status_code, 200, "DELETE /mappings/{id} of the saved mapping: status")
        if self.root_dir is not None:
            r.equal(saved_files(self.root_dir, created.id), [], "files holding the saved mapping's id after it is deleted (WireMock removes them)")
        r.equal(self.total(), self.baseline, "meta.total after deleting the saved mapping")

    def section_metadata(self):
        """POST /mappings/remove-by-metadata removes the mappings whose metadata match."""
        r = self.report
        c = self.client
        kept = c.Mapping(metadata={"check": {"group": "keep"}}, request=c.MappingRequest(method="GET", url=PREFIX + "/kept"), response=c.MappingResponse(status=200))
        gone = c.Mapping(metadata={"check": {"group": "drop"}}, request=c.MappingRequest(method="GET", url=PREFIX + "/dropped"), response=c.MappingResponse(status=200))
        kept = self.create(kept, "GET /kept with metadata")
        gone = self.create(gone, "GET /dropped with metadata")
        r.equal(gone.metadata, {"check": {"group": "drop"}}, "the created mapping's metadata")
        response = c.Mappings.delete_mapping_by_metadata({"matchesJsonPath": {"expression": "$.check.group", "equalTo": "drop"}})
        r.equal(response.status_code, 200, "POST /mappings/remove-by-metadata: status")
        ids = self.ids()
        r.equal((kept.id in ids, gone.id in ids), (True, False), "after remove-by-metadata: the kept mapping listed, the dropped one not")
        r.equal(send(self.base_url, "GET", PREFIX + "/dropped").status, 404, "GET /dropped after remove-by-metadata: status")
        c.Mappings.delete_mapping(kept.id)

    def section_settings(self):
        """POST /settings {fixedDelay}: every answer waits at least that long."""
        r = self.report
        c = self.client
        self.create(self.mapping("GET", "url", PREFIX + "/slow", body="slow"), "GET /slow")
        raised = []
        for delay in (400, 0):
            try:
                result = c.GlobalSettings.update_global_settings(c.GlobalSetting(fixed_delay=delay))
                r.check(isinstance(result, c.GlobalSetting), f"update_global_settings(fixedDelay {delay}) returns a GlobalSetting", type(result))
            except ValueError as error:  # requests' JSONDecodeError: the status was 200, 201 or 204
                raised.append(f"{delay} ({type(error).__name__})")
            if delay:
                answer = send(self.base_url, "GET", PREFIX + "/slow")
                r.equal(answer.body, b"slow", f"GET /slow with fixedDelay {delay}: body")
                r.check(answer.seconds >= delay / 1000, f"GET /slow with fixedDelay {delay}: the answer took at least {delay} ms", f"{answer.seconds * 1000:.0f} ms")
        if raised:
            r.finding(
                "update_global_settings: WireMock answers POST /__admin/settings with 200 and an empty body, and the client, which parses every "
                f"answer of `_create` as JSON, raises after the setting is applied (fixedDelay {', '.join(raised)}); the delay itself is checked"
            )
        r.equal(c.Mappings.reset_mappings().status_code, 200, "POST /mappings/reset: status")

    def run(self, sections):
        self.start()
        # Some sections build on others: update and delete on mappings, near-misses on journal.
        needs = {"update": "mappings", "delete": "mappings", "near-misses": "journal"}
        for section in SECTIONS:
            if section not in sections:
                continue
            if needs.get(section) and needs[section] not in sections:
                raise ToolError(f"section {section} needs section {needs[section]}: name both, or neither")
            self.report.section = section
            say(f"{TOOL}: section {section}")
            try:
                getattr(self, "section_" + section.replace("-", "_"))()
            except self.client.ApiException as error:
                self.report.problem(f"the client raised {type(error).__name__}: status {error.status_code}, body {str(error)[:300]!r}\n" + traceback.format_exc(limit=4))
            except Exception as error:  # noqa: BLE001 — a client call that fails to parse an answer, say where
                self.report.problem(f"{type(error).__name__}: {error}\n" + traceback.format_exc(limit=6))
        self.report.section = ""


def is_uuid(value):
    try:
        return str(uuid.UUID(str(value))) == str(value).lower()
    except ValueError:
        return False


def header_value(headers, name):
    value = next((v for k, v in (headers or {}).items() if k.lower() == name.lower()), None)
    return value[0] if isinstance(value, list) and len(value) == 1 else value


def saved_files(root_dir, mapping_id):
    folder = Path(root_dir) / "mappings"
    return sorted(p for p in folder.rglob("*.json") if mapping_id in p.read_text(errors="replace")) if folder.is_dir() else []


# MARK: - Commands


def command_admin(arguments):
    report = Report("admin", strict=arguments.strict)
    sections = [s for s in SECTIONS if (not arguments.only or s in arguments.only) and s not in (arguments.skip or [])]
    report.extra["sections"] = sections
    if bool(arguments.base_url) == bool(arguments.wiremock_jar):
        raise ToolError("give either --base-url URL (a running server) or --wiremock-jar PATH (start WireMock standalone)")
    if arguments.base_url:
        report.extra["base_url"] = arguments.base_url
        AdminCheck(arguments.base_url, arguments.root_dir, report).run(sections)
        return report.finish()
    jar = Path(arguments.wiremock_jar)
    if not jar.is_file():
        raise ToolError(f"no WireMock jar at {jar}: `bash Benchmarks/http-load.sh` fetches it (PyPI's wiremock wheel carries it), or pass another path")
    root = Path(tempfile.mkdtemp(prefix="wiremock-client-"))
    server = WireMockJar(jar, root, arguments.java)
    try:
        server.start()
        report.extra["base_url"] = server.base_url
        report.extra["server"] = "WireMock standalone " + jar.name
        AdminCheck(server.base_url, root, report).run(sections)
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
    return report.finish()


# What may differ between WireMock 2.35.1 and the other server on the same mapping and request,
# each documented in MigratingFromWireMock.md ("What differs"); any other difference is a problem.
KNOWN_DIFFERENCES = {
    "wiremock-failed": "WireMock failed with an exception (its Jetty `Error 500` page, a stack trace), where the other server answered",
    "connect": "a CONNECT request opens a tunnel on the other server, as a proxy's CONNECT does",
    "neither-matched": "neither server answered with the mapping (the derived request matches neither); only the wording of the no-match answer differs",
    "stubr-generator": "the template uses one of stubr's generators (`{{anyUuid}}`, `{{anyRegex …}}`…), which WireMock does not have (it renders nothing) and the other server serves as stubr does",
    "own-port": "the template inserts `request.port`, each server's own port",
    "missing-value": "a helper is given a request value the derived request lacks: WireMock's Handlebars.java puts one of the helper's other values in its place, the other server renders nothing",
}


def known_difference(entry):
    """Which documented difference an entry of the side-by-side script's `different` list is, or
    None."""
    statuses = entry.get("statuses") or [None, None]
    if entry.get("wiremock_failed"):
        return "wiremock-failed"
    if entry.get("request", "").startswith("CONNECT "):
        return "connect"
    if statuses == [404, 404] and not entry.get("wiremock_answered_it"):
        return "neither-matched"
    response = entry.get("response", "")
    differences = entry.get("differences", [])
    only_body = statuses[0] == statuses[1] and all(text.startswith("body ") for text in differences)
    if only_body and re.search(r"\{\{\s*any[A-Z]", response):
        return "stubr-generator"
    if only_body and "request.port" in response:
        return "own-port"
    if only_body and re.search(r"\{\{\s*[a-zA-Z]+ request\.[A-Za-z.]+ ", response) and all(text.endswith("vs 0 bytes b''") for text in differences):
        return "missing-value"
    return None


def command_side_by_side(arguments):
    """WireMock 2.35.1 (the jar inside PyPI's `wiremock` wheel, installed with the client) and
    the other server on the same folders, each mapping alone on both (`--isolated`): runs
    Benchmarks/wiremock-side-by-side.py and reads its result."""
    report = Report("side-by-side", strict=arguments.strict)
    java = shutil.which(arguments.java)
    if java is None:
        report.finding(f"Java is not installed here (Debian: openjdk-17-jre-headless): WireMock was not started and nothing was compared (CI installs it)")
        return report.finish()
    if arguments.wiremock_jar:
        jar = Path(arguments.wiremock_jar)
    else:
        import wiremock

        jars = sorted((Path(wiremock.__file__).parent / "server").glob("wiremock-standalone-*.jar"))
        if not jars:
            raise ToolError(f"PyPI's wiremock {REQUIREMENTS[0]} carries no wiremock-standalone-*.jar under wiremock/server/")
        jar = jars[-1]
    report.extra["wiremock"] = jar.name
    script = ROOT / "Benchmarks" / "wiremock-side-by-side.py"
    command = [sys.executable, str(script), "--isolated", "--jar", str(jar), "--other", arguments.other] + arguments.roots
    say(f"{TOOL}: {' '.join(command)}")
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace", preexec_fn=die_with_parent, env=dict(os.environ, PATH=os.path.dirname(java) + os.pathsep + os.environ.get("PATH", "")))
    last = None
    for line in process.stdout:
        line = line.rstrip("\n")
        say("  " + line)
        if line.startswith("{"):
            last = line
    process.wait()
    if last is None:
        raise ToolError(f"wiremock-side-by-side.py exited with status {process.returncode} without a result line")
    result = json.loads(last)
    if result.get("errors"):
        for error in result["errors"]:
            report.problem(f"the side-by-side run could not compare: {error}")
    for load in result.get("load", []):
        if load["mappings_in_files"] != load["loaded_by_wiremock"]:
            report.problem(f"{load['root']}: WireMock loaded {load['loaded_by_wiremock']} of {load['mappings_in_files']} mappings")
    known = {key: [] for key in KNOWN_DIFFERENCES}
    for entry in result.get("different", []):
        kind = known_difference(entry)
        if kind is None:
            report.problem(f"{entry['mapping']} (answering {entry.get('response', '?')}): {entry['request']}: " + "; ".join(entry["differences"]))
        else:
            known[kind].append(entry["mapping"])
    for kind, mappings in known.items():
        if mappings:
            report.finding(f"{len(mappings)} known difference(s), {KNOWN_DIFFERENCES[kind]}: " + ", ".join(mappings))
    report.extra.update({
        "mappings": result.get("mappings"), "probed": result.get("probed"), "same": result.get("same"),
        "different": len(result.get("different", [])), "known": {kind: len(m) for kind, m in known.items()},
        "refused": [entry["mapping"] for entry in result.get("refused", [])], "skipped": len(result.get("skipped", [])),
    })
    if not result.get("probed"):
        report.problem("nothing was probed")
    return report.finish()


def command_install(arguments):
    from importlib.metadata import version

    report = Report("install")
    report.extra.update({"venv": str(VENV), "python": sys.version.split()[0], "wiremock": version("wiremock"), "requests": version("requests")})
    return report.finish()


def parser():
    top = argparse.ArgumentParser(prog="wiremock_client.py", description=__doc__.split("\n\n")[0])
    commands = top.add_subparsers(dest="command", required=True)

    command = commands.add_parser("install", help="install (or reuse) the wiremock client in .build/wiremock-client and print its version")
    command.set_defaults(run=command_install)

    command = commands.add_parser("side-by-side", help="serve folders with WireMock 2.35.1 (from the wheel) and another server, each mapping alone, and compare their answers")
    command.add_argument("roots", nargs="+", help="folders holding mappings/ (and __files/), or a folder of such folders")
    command.add_argument("--other", required=True, help="the other server's command; {root} and {port} are filled in")
    command.add_argument("--wiremock-jar", help="this jar instead of the wheel's")
    command.add_argument("--java", default="java", help="the java executable (default: java)")
    command.add_argument("--strict", action="store_true", help="known differences (findings) fail too")
    command.set_defaults(run=command_side_by_side)

    command = commands.add_parser("admin", help="drive a WireMock admin API through the client's own API and check every answer")
    command.add_argument("--base-url", help="a running server, e.g. http://127.0.0.1:8080 (its admin API under /__admin)")
    command.add_argument("--root-dir", help="with --base-url: the server's root folder (mappings/, __files/), to check what POST /__admin/mappings/save writes")
    command.add_argument("--wiremock-jar", help="start this WireMock standalone jar on a free port with an empty temporary --root-dir, check it, stop it")
    command.add_argument("--java", default="java", help="the java executable for --wiremock-jar (default: java)")
    command.add_argument("--only", nargs="+", choices=SECTIONS, help="run only these sections")
    command.add_argument("--skip", nargs="+", choices=SECTIONS, help="leave these sections out")
    command.add_argument("--strict", action="store_true", help="known differences (findings) fail too")
    command.set_defaults(run=command_admin)
    return top


def main():
    return toolenv.main(ENVIRONMENT, parser, __file__)


if __name__ == "__main__":
    sys.exit(main())
