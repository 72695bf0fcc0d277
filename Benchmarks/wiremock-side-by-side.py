#!/usr/bin/env python3
"""The same WireMock mappings folder served by WireMock standalone and by another server; the
same requests to both; their answers diffed.

    python3 Benchmarks/wiremock-side-by-side.py ROOT...            # each ROOT holds mappings/ (and __files/)
    python3 Benchmarks/wiremock-side-by-side.py Tests/Fixtures/WireMockCorpus   # every source below it
    python3 Benchmarks/wiremock-side-by-side.py ROOT --other 'java -jar .build/benchmarks/wiremock-standalone.jar --port {port} --root-dir {root}'

For each root: WireMock (`--jar`, default .build/benchmarks/wiremock-standalone.jar, started with
`--local-response-templating` as PyPI's wiremock client starts it) and the other server (`--other`,
default `.build/release/airlock serve --wiremock {root} --port 0`; `{root}` and `{port}` are filled
in, and without `{port}` the port is read from the first `http://127.0.0.1:PORT` the server
prints) serve the root. WireMock's `GET /__admin/mappings` total must equal the mappings in the
files (a file is one mapping or `{"mappings": [...]}`). For each mapping WireMock lists, a request
that should match it is derived (method, url/urlPath/a string for urlPattern/urlPathPattern,
query, headers, cookies, basic auth and body from equalTo-like matchers); what cannot be derived is
skipped with the reason. Both servers get the same request, after `POST /__admin/scenarios/reset`
on each; compared: status, the header fields that matter (Content-Type, Location, Set-Cookie and
every field the mapping's response names; not Date, Server, Transfer-Encoding, Content-Length,
Connection, Matched-Stub-*), and the body bytes, each server's own `127.0.0.1:PORT` and
`localhost:PORT` written as `HOST:PORT` first.

A root may also hold `side-by-side-probes.json`, requests to send as they are (for matchers no
request is derived for, and requests that must not match): both servers' statuses are compared
with each other and with the one the file records, and the bodies unless both answered 404.

Only what is deterministic is compared, and the table says so: for a `fault`, that both fail to
give an HTTP answer; with a `delayDistribution`, status, fields and body but not the time; with
templating that uses `now`, `random*`, `randomValue`, `uuid`, `date`, `parseDate` or `pickRandom`,
status and the fields but not the body or those fields' values.

The table goes to standard output; the last line is one JSON object: {"tool":
"wiremock-side-by-side", "roots": [...], "mappings": N, "probed": N, "same": N, "different":
[{...}], "skipped": [{...}], "load": [...], "ok": ...}. Exit status 0 all probed the same and every
root loaded whole, 1 otherwise, 2 could not run. Everything listens on 127.0.0.1.
"""
import argparse
import base64
import http.client
import json
import tempfile
import shutil
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
JAR = ROOT / ".build" / "benchmarks" / "wiremock-standalone.jar"
DEFAULT_OTHER = str(ROOT / ".build" / "release" / "airlock") + " serve --wiremock {root} --port 0"
START_LIMIT = 60  # hang guard for a server's start-up
CALL_LIMIT = 30  # hang guard for one exchange (delays in the corpus are a few seconds at most)
IGNORED_FIELDS = {"date", "server", "transfer-encoding", "content-length", "connection", "keep-alive", "matched-stub-id", "matched-stub-name", "vary"}
ALWAYS_FIELDS = ["content-type", "location", "set-cookie"]
RANDOM_TEMPLATE = re.compile(r"\{\{[^}]*\b(now|random\w*|randomValue|uuid|date|parseDate|pickRandom|hostname)\b")


def say(line):
    print(line, flush=True)


try:
    import ctypes

    PRCTL = ctypes.CDLL(None, use_errno=True).prctl
except (ImportError, OSError, AttributeError):
    PRCTL = None


def die_with_parent():
    if PRCTL is not None:
        PRCTL(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG: no server outlives a killed run


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# MARK: - Servers


class Server:
    def __init__(self, name, command, root):
        self.name = name
        self.port = free_port() if "{port}" in command else None
        self.arguments = [a.replace("{root}", str(root)).replace("{port}", str(self.port or "")) for a in shlex.split(command)]
        self.lines = []
        self.process = None

    def start(self):
        say(f"  starting {self.name}: {' '.join(self.arguments)}")
        self.process = subprocess.Popen(self.arguments, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace", preexec_fn=die_with_parent)
        threading.Thread(target=self._pump, daemon=True).start()
        started = time.monotonic()
        while time.monotonic() - started < START_LIMIT:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with status {self.process.returncode}: " + " | ".join(self.lines[-8:]))
            if self.port is None:
                found = next((m for m in (re.search(r"http://127\.0\.0\.1:(\d+)", line) for line in self.lines) if m), None)
                if found:
                    self.port = int(found.group(1))
            if self.port is not None:
                try:
                    exchange(self.port, "GET", "/__admin/mappings", {}, None)
                    return self
                except OSError:
                    pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"{self.name} did not answer within {START_LIMIT} s: " + " | ".join(self.lines[-8:]))

    def _pump(self):
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def exchange(port, method, target, headers, body):
    """One request on its own connection; returns (status, [(name, value)], body) or raises."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=CALL_LIMIT)
    try:
        connection.request(method, target, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, response.getheaders(), response.read()
    finally:
        connection.close()


def admin_json(port, method, path, body=None):
    # JSON, as WireMock's clients send it (Airlock's admin API refuses other writes: a web page
    # could send them).
    status, _, data = exchange(port, method, path, {"Content-Type": "application/json"}, body)
    return status, (json.loads(data) if data.strip() else None)


# MARK: - Mapping files


def mappings_in_files(root):
    count = 0
    for path in sorted((Path(root) / "mappings").rglob("*")):
        if path.is_file() and path.suffix.lower() == ".json":
            try:
                data = json.loads(path.read_bytes())
            except ValueError:
                continue
            count += len(data["mappings"]) if isinstance(data, dict) and isinstance(data.get("mappings"), list) else 1
    return count


def roots_under(paths):
    roots = []
    for path in map(Path, paths):
        if (path / "mappings").is_dir():
            roots.append(path)
        else:
            roots.extend(sorted(p for p in path.iterdir() if (p / "mappings").is_dir()))
    return roots


# MARK: - Deriving a request


class Skip(Exception):
    pass


def sample(pattern):
    """A string the (simple) regular expression matches in full, or Skip."""
    out = []
    i = 0

    def atom_at(i):
        c = pattern[i]
        if c == "\\":
            e = pattern[i + 1]
            return {"d": "1", "w": "a", "s": " ", "D": "a", "W": "-", "S": "a"}.get(e, e), i + 2
        if c == ".":
            return "a", i + 1
        if c == "[":
            j = pattern.index("]", i + 2)
            body = pattern[i + 1 : j]
            if body.startswith("^"):
                for candidate in "a1-_xZ":
                    if not re.fullmatch("[" + body + "]", candidate):
                        return candidate, j + 1
                raise Skip(f"no character for [{body}]")
            first = body[1] if body.startswith("\\") else body[0]
            return {"d": "1", "w": "a", "s": " "}.get(first, first) if body.startswith("\\") else first, j + 1
        if c == "(":
            depth, j = 1, i + 1
            while depth:
                if pattern[j] == "\\":
                    j += 2
                    continue
                depth += {"(": 1, ")": -1}.get(pattern[j], 0)
                j += 1
            inner = pattern[i + 1 : j - 1]
            inner = re.sub(r"^\?(:|<\w+>|P<\w+>)", "", inner)
            branch = split_alternatives(inner)[0]
            return sample(branch), j
        if c in "^$":
            return "", i + 1
        if c in "*+?{|)":
            raise Skip(f"regex {pattern!r} is beyond the sampler")
        return c, i + 1

    if "|" in split_alternatives(pattern)[0] or len(split_alternatives(pattern)) > 1:
        return sample(split_alternatives(pattern)[0])
    while i < len(pattern):
        text, i = atom_at(i)
        repeat = 1
        if i < len(pattern) and pattern[i] in "*+?{":
            if pattern[i] == "{":
                j = pattern.index("}", i)
                repeat = int(pattern[i + 1 : j].split(",")[0] or 0)
                i = j + 1
            else:
                repeat = 0 if pattern[i] in "*?" else 1
                i += 1
            if i < len(pattern) and pattern[i] in "?+":
                i += 1
        out.append(text * repeat)
    return "".join(out)


def split_alternatives(pattern):
    parts, depth, start, i = [], 0, 0, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    parts.append(pattern[start:])
    return parts


def value_for(matcher, where):
    """A value a string matcher accepts, or None for `absent`."""
    if not isinstance(matcher, dict):
        raise Skip(f"{where}: matcher {matcher!r}")
    if matcher.get("absent") is True:
        return None
    for key in ("equalTo", "contains", "equalToJson", "binaryEqualTo"):
        if key in matcher:
            value = matcher[key]
            return value if isinstance(value, str) else json.dumps(value)
    if "matches" in matcher:
        value = sample(matcher["matches"])
        if not re.fullmatch(matcher["matches"], value):
            raise Skip(f"{where}: no sample for matches {matcher['matches']!r}")
        return value
    if "doesNotMatch" in matcher:
        for candidate in ("zz-side-by-side", "1"):
            if not re.fullmatch(matcher["doesNotMatch"], candidate):
                return candidate
    if "and" in matcher or "or" in matcher:
        return value_for((matcher.get("and") or matcher.get("or"))[0], where)
    if "anything" in matcher:
        return "anything"
    raise Skip(f"{where}: matcher {sorted(matcher)} is not derived")


def derive(mapping):
    request = mapping.get("request", {})
    response = mapping.get("response", {})
    for field in ("multipartPatterns", "customMatcher", "urlPathTemplate", "pathParameters", "formParameters", "host", "port", "scheme"):
        if field in request:
            raise Skip(f"request.{field} is not derived")
    if mapping.get("requiredScenarioState") not in (None, "Started"):
        raise Skip(f"needs scenario state {mapping['requiredScenarioState']!r} (probed from Started only)")
    if response.get("proxyBaseUrl") and not re.match(r"https?://(127\.|localhost)", response["proxyBaseUrl"]):
        raise Skip(f"proxies to {response['proxyBaseUrl']} (no network here)")
    method = request.get("method", "ANY")
    method = "GET" if method == "ANY" else method
    if "url" in request:
        target = request["url"]
    elif "urlPath" in request:
        target = request["urlPath"]
    elif "urlPattern" in request or "urlPathPattern" in request:
        pattern = request.get("urlPattern") or request.get("urlPathPattern")
        target = sample(pattern)
        if not re.fullmatch(pattern, target):
            raise Skip(f"no sample for {pattern!r}")
    else:
        target = "/side-by-side-any"
    if not target.startswith("/"):
        raise Skip(f"url {target!r} is not a path")
    if target.startswith("/__admin"):
        raise Skip("an admin path")
    query = []
    for name, matcher in (request.get("queryParameters") or {}).items():
        matchers = matcher.get("hasExactly") or matcher.get("includes") if isinstance(matcher, dict) and ("hasExactly" in matcher or "includes" in matcher) else [matcher]
        for one in matchers:
            value = value_for(one, f"queryParameters.{name}")
            if value is not None:
                query.append((name, value))
    if query:
        target += ("&" if "?" in target else "?") + urllib.parse.urlencode(query)
    headers = {}
    for name, matcher in (request.get("headers") or {}).items():
        value = value_for(matcher, f"headers.{name}")
        if value is not None:
            headers[name] = value
    cookies = []
    for name, matcher in (request.get("cookies") or {}).items():
        value = value_for(matcher, f"cookies.{name}")
        if value is not None:
            cookies.append(f"{name}={value}")
    if cookies:
        headers["Cookie"] = "; ".join(cookies)
    if "basicAuthCredentials" in request:
        credentials = request["basicAuthCredentials"]
        headers["Authorization"] = "Basic " + base64.b64encode(f"{credentials['username']}:{credentials['password']}".encode()).decode()
    body = None
    patterns = request.get("bodyPatterns") or []
    for pattern in patterns:
        if "binaryEqualTo" in pattern:
            body = base64.b64decode(pattern["binaryEqualTo"])
        elif "equalToJson" in pattern or "equalTo" in pattern or "equalToXml" in pattern:
            value = pattern.get("equalToJson", pattern.get("equalTo", pattern.get("equalToXml")))
            body = (value if isinstance(value, str) else json.dumps(value)).encode()
        elif "matches" in pattern and body is None:
            body = sample(pattern["matches"]).encode()
    for pattern in patterns:
        kind = next(iter(pattern))
        if kind in ("binaryEqualTo", "equalTo", "equalToJson", "equalToXml"):
            continue
        if kind == "contains" and body is None:
            body = pattern["contains"].encode()
        elif kind == "contains" and pattern["contains"].encode() in body:
            continue
        elif kind == "matches" and body is not None and re.fullmatch(pattern["matches"], body.decode(errors="replace"), re.S):
            continue
        elif kind not in ("contains", "matches"):
            raise Skip(f"bodyPatterns {kind} is not derived")
    if body is not None and method in ("GET", "HEAD"):
        method = "POST" if request.get("method", "ANY") == "ANY" else method
    return method, target, headers, body


# MARK: - Comparing


def normalised(data, port):
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        data = data.replace(host.encode(), b"HOST:PORT")
    return data


def answer(port, method, target, headers, body):
    try:
        status, fields, data = exchange(port, method, target, headers, body)
        return {"status": status, "fields": fields, "body": normalised(data, port)}
    except (OSError, http.client.HTTPException) as error:
        return {"failed": type(error).__name__}


def wiremock_failed(one):
    """WireMock answered with its own error page (Jetty's `Error 500`, an exception while it
    served), not with anything a mapping says."""
    return one.get("status") == 500 and b"<title>Error 500" in one.get("body", b"")


def identity(stub_mapping):
    """A mapping as what it matches and answers, for telling which one answered on each server."""
    if not stub_mapping:
        return None
    return json.dumps({key: stub_mapping.get(key) for key in ("request", "response", "priority", "scenarioName", "requiredScenarioState")}, sort_keys=True)


def compare(mapping, one, other):
    response = mapping.get("response", {})
    if response.get("fault"):
        same = ("failed" in one) == ("failed" in other)
        return same, [] if same else [f"fault {response['fault']}: WireMock {'failed' if 'failed' in one else one.get('status')}, other {'failed' if 'failed' in other else other.get('status')}"], "fault: both fail or not"
    if "failed" in one or "failed" in other:
        return one == other, [] if one == other else [f"WireMock {one.get('failed') or one['status']}, other {other.get('failed') or other['status']}"], ""
    differences = []
    notes = []
    if one["status"] != other["status"]:
        differences.append(f"status {one['status']} vs {other['status']}")
    template = "response-template" in (response.get("transformers") or []) or "{{" in json.dumps(response)
    random_body = template and RANDOM_TEMPLATE.search(json.dumps(response))
    names = list(ALWAYS_FIELDS) + [name.lower() for name in (response.get("headers") or {})]
    for name in dict.fromkeys(names):
        if name in IGNORED_FIELDS:
            continue
        a = [v for k, v in one["fields"] if k.lower() == name]
        b = [v for k, v in other["fields"] if k.lower() == name]
        if random_body:
            a, b = len(a), len(b)
        if a != b:
            differences.append(f"{name}: {a!r} vs {b!r}")
    if random_body:
        notes.append("templating with now/random: body and field values not compared")
    elif one["body"] != other["body"]:
        differences.append(f"body {len(one['body'])} bytes {one['body'][:80]!r} vs {len(other['body'])} bytes {other['body'][:80]!r}")
    if response.get("delayDistribution"):
        notes.append("random delay: time not compared")
    return not differences, differences, "; ".join(notes)


# MARK: - Main


def run_root(root, arguments, summary):
    say(f"\n== {root}")
    files_count = mappings_in_files(root)
    wiremock_command = f"java -jar {shlex.quote(str(arguments.jar))} --port {{port}} --bind-address 127.0.0.1 --root-dir {{root}} --local-response-templating --disable-banner"
    served_root = root
    if arguments.isolated:
        # The mappings as WireMock reads them from the folder; then both servers start on a copy
        # with the same __files and no mappings, and get one mapping at a time.
        reader = Server("WireMock", wiremock_command, root)
        try:
            reader.start()
            _, first_listing = admin_json(reader.port, "GET", "/__admin/mappings")
        finally:
            reader.stop()
        served_root = Path(tempfile.mkdtemp(prefix="side-by-side-"))
        (served_root / "mappings").mkdir()
        if (root / "__files").exists():
            shutil.copytree(root / "__files", served_root / "__files")
    wiremock = Server("WireMock", wiremock_command, served_root)
    other = Server("other", arguments.other, served_root)
    try:
        wiremock.start()
        other.start()
        _, listing = admin_json(wiremock.port, "GET", "/__admin/mappings")
        if arguments.isolated:
            listing = first_listing
        mappings = listing["mappings"]
        load = {"root": str(root), "mappings_in_files": files_count, "loaded_by_wiremock": listing["meta"]["total"]}
        summary["load"].append(load)
        say(f"  mappings in files: {files_count}; WireMock loaded: {listing['meta']['total']}")
        summary["mappings"] += len(mappings)
        for mapping in mappings:
            label = f"{root.name}:{mapping.get('name') or mapping['id'][:8]} {mapping['request'].get('method', 'ANY')} " + str(
                next((mapping["request"][k] for k in ("url", "urlPath", "urlPattern", "urlPathPattern") if k in mapping["request"]), "(any url)")
            )
            try:
                method, target, headers, body = derive(mapping)
            except (Skip, ValueError, KeyError, IndexError) as reason:
                summary["skipped"].append({"mapping": label, "reason": str(reason)})
                say(f"  {'skip':9} {label[:90]}  ({reason})")
                continue
            if arguments.isolated:
                # Each mapping alone on both servers, sent as WireMock lists it: what it answers
                # does not depend on which of several overlapping mappings a server prefers.
                refused = None
                for server in (wiremock, other):
                    admin_json(server.port, "DELETE", "/__admin/mappings")
                    status, _ = admin_json(server.port, "POST", "/__admin/mappings", json.dumps(mapping).encode())
                    if status != 201:
                        refused = f"{server.name} refused the mapping ({status})"
                if refused:
                    summary["refused"].append({"mapping": label, "reason": refused})
                    say(f"  {'refused':9} {label[:90]}  ({refused})")
                    continue
            for server in (wiremock, other):
                status, _ = admin_json(server.port, "POST", "/__admin/scenarios/reset")
                if status != 200:
                    raise RuntimeError(f"{server.name}: POST /__admin/scenarios/reset answered {status}")
            one = answer(wiremock.port, method, target, headers, body)
            two = answer(other.port, method, target, headers, body)
            _, journal = admin_json(wiremock.port, "GET", "/__admin/requests?limit=1")
            served = ((journal or {}).get("requests") or [{}])[0].get("stubMapping", {})
            served_by = served.get("id")
            # Which mapping the other server answered with, by what it matches and answers (ids
            # differ: each server makes up its own for mappings that have none).
            _, other_journal = admin_json(other.port, "GET", "/__admin/requests?limit=1")
            other_served = ((other_journal or {}).get("requests") or [{}])[0].get("stubMapping", {})
            same_mapping = identity(served) == identity(other_served)
            same, differences, note = compare(mapping, one, two)
            summary["probed"] += 1
            intended = served_by == mapping["id"]
            if not intended:
                summary["answered_by_another_mapping"] += 1
                note = (note + "; " if note else "") + "WireMock answered with another mapping"
            if not same_mapping:
                summary["answered_by_other_mappings_in_each"] += 1
                note = (note + "; " if note else "") + "the servers answered with different mappings"
            if same:
                summary["same"] += 1
            else:
                summary["different"].append({
                    "mapping": label, "request": f"{method} {target}", "differences": differences,
                    "wiremock_answered_it": intended, "same_mapping_answered": same_mapping,
                    "statuses": [one.get("status"), two.get("status")], "wiremock_failed": wiremock_failed(one),
                    "response": json.dumps(mapping.get("response", {}))[:160],
                })
            say(f"  {'same' if same else 'DIFFERENT':9} {label[:90]}  {method} {target[:60]}" + (f"  [{note}]" if note else "") + ("" if same else "\n            " + "\n            ".join(differences)))
        if arguments.isolated and (root / "side-by-side-probes.json").is_file():
            # The probes are for the folder as a whole: every mapping again, on both, in the
            # order WireMock read them (its listing puts the last added first).
            for server in (wiremock, other):
                admin_json(server.port, "DELETE", "/__admin/mappings")
                for mapping in reversed(first_listing["mappings"]):
                    admin_json(server.port, "POST", "/__admin/mappings", json.dumps(mapping).encode())
        probe_extras(root, wiremock, other, summary)
    finally:
        other.stop()
        wiremock.stop()
        if served_root != root:
            shutil.rmtree(served_root, ignore_errors=True)


def probe_extras(root, wiremock, other, summary):
    """The requests a root's `side-by-side-probes.json` lists (for matchers no request is derived
    for: date-times, multipart bodies, and requests that must not match), sent to both servers:
    status compared, and the body unless both answered 404 (each words its own)."""
    probes_file = root / "side-by-side-probes.json"
    if not probes_file.is_file():
        return
    for probe in json.loads(probes_file.read_text())["probes"]:
        method, target, headers = probe["method"], probe["target"], probe.get("headers", {})
        body = probe["body"].encode() if "body" in probe else None
        for server in (wiremock, other):
            admin_json(server.port, "POST", "/__admin/scenarios/reset")
        one = answer(wiremock.port, method, target, headers, body)
        two = answer(other.port, method, target, headers, body)
        label = f"{root.name}:probe {method} {target} {json.dumps(headers)[:60]}"
        differences = []
        if one.get("status") != two.get("status"):
            differences.append(f"status {one.get('status')} vs {two.get('status')}")
        elif one.get("status") != 404 and one.get("body") != two.get("body"):
            differences.append(f"body {one.get('body', b'')[:80]!r} vs {two.get('body', b'')[:80]!r}")
        if one.get("status") != probe["status"]:
            differences.append(f"WireMock answered {one.get('status')}, the file expects {probe['status']}")
        summary["probed"] += 1
        if differences:
            summary["different"].append({"mapping": label, "request": f"{method} {target}", "differences": differences})
        else:
            summary["same"] += 1
        say(f"  {'same' if not differences else 'DIFFERENT':9} {label[:110]}" + ("" if not differences else "\n            " + "\n            ".join(differences)))


def main():
    top = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    top.add_argument("roots", nargs="+", help="folders holding mappings/ (and __files/), or a folder of such folders")
    top.add_argument("--jar", default=str(JAR), help="WireMock standalone's jar (default: .build/benchmarks/wiremock-standalone.jar)")
    top.add_argument("--isolated", action="store_true", help="serve each mapping alone on both servers (through their admin APIs) before probing it")
    top.add_argument("--other", default=DEFAULT_OTHER, help="the other server's command; {root} and {port} are filled in (default: %(default)s)")
    arguments = top.parse_args()
    if not Path(arguments.jar).is_file():
        say(f"no WireMock jar at {arguments.jar}: `bash Benchmarks/http-load.sh` fetches it from PyPI's wiremock wheel")
        return 2
    summary = {"tool": "wiremock-side-by-side", "roots": [], "mappings": 0, "probed": 0, "same": 0, "answered_by_another_mapping": 0, "answered_by_other_mappings_in_each": 0, "different": [], "skipped": [], "refused": [], "load": [], "errors": []}
    for root in roots_under(arguments.roots):
        summary["roots"].append(str(root))
        try:
            run_root(root, arguments, summary)
        except (RuntimeError, OSError, ValueError) as error:
            summary["errors"].append(f"{root}: {error}")
            say(f"  ERROR: {error}")
    whole = all(load["mappings_in_files"] == load["loaded_by_wiremock"] for load in summary["load"])
    summary["ok"] = not summary["different"] and not summary["errors"] and whole
    say(f"\n{summary['mappings']} mappings in {len(summary['roots'])} roots: {summary['probed']} probed, {summary['same']} same, {len(summary['different'])} different, {len(summary['skipped'])} skipped" + ("" if whole else "; WireMock did not load every mapping in the files"))
    print(json.dumps(summary), flush=True)
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
