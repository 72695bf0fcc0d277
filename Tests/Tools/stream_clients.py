#!/usr/bin/env python3
"""Reads Airlock's streams with clients no one here wrote: PyPI's httpx-sse, and curl -N.

    python3 Tests/Tools/stream_clients.py sse --url URL --expect EXPECTED.json [--method POST --body TEXT --header NAME:VALUE]
    python3 Tests/Tools/stream_clients.py read --url URL [--method POST --body TEXT --header NAME:VALUE --max-events N]
    python3 Tests/Tools/stream_clients.py install

(`--help` lists every subcommand; Tests/Tools/README.md says what each one checks.)

It installs what it needs itself, once, into a virtual environment under `.build/stream-clients/`
(httpx and httpx-sse from PyPI at the versions pinned below, every dependency pinned too), then
runs again inside it. It writes nothing else.

`sse` reads the URL's server-sent events twice: with httpx-sse (each event parsed: event, data, id,
retry) and with `curl -N` (each line as curl prints it, unbuffered), noting when each event arrives
after the request went out. EXPECTED.json is a list of events, `{"event": ..., "data": ...,
"id": ..., "retry": ..., "after": SECONDS}` (a comment in the stream: `{"comment": true}`), where `after` is the least time the event may arrive
after the request (the pauses before it): an event may come late on a loaded machine, never early.
Each event must also arrive in a read of its own before the next event's time, which shows the
server flushed it alone (checked only where the next event's pause is long enough to tell,
`--apart` seconds). A machine without curl skips the curl read with a finding (CI installs curl).

`read` reads the URL's events with httpx-sse and prints them, each with its arrival time; with
`--max-events N` it closes the stream after N events, as a client that has what it wanted leaves.

Made for a test to drive as a child process: everything goes to standard output (standard error
is joined to it), a line at least every 15 seconds while it works, and the last line is one JSON
object: {"tool": "stream_clients", "command": ..., "ok": true|false, "problems": [...],
"findings": [...], "checks": N, "events": [...]}. Exit status: 0 ok, 1 problems, 2 the clients
could not be installed or the command could not run.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.dont_write_bytecode = True  # nothing beside this script in the source tree

ROOT = Path(__file__).resolve().parents[2]
HOME = Path(os.environ.get("STREAM_CLIENTS_HOME") or ROOT / ".build" / "stream-clients")
TOOL = "stream_clients"

# The versions this script was verified with (httpx-sse 0.4.3 and httpx 0.28.1, the newest
# releases), and every package they pulled in, pinned as constraints so that a fresh machine
# installs the same set.
REQUIREMENTS = ["httpx==0.28.1", "httpx-sse==0.4.3"]
CONSTRAINTS = """\
anyio==4.16.0
certifi==2026.10.19.post1
h11==0.16.0
httpcore==1.0.9
idna==3.20
typing_extensions==4.16.0
"""
sys.path.insert(0, str(Path(__file__).resolve().parent))
import toolenv  # noqa: E402  (Tests/Tools' shared installation and result line)
from toolenv import ToolError, say  # noqa: E402

ENVIRONMENT = toolenv.Environment(TOOL, HOME, REQUIREMENTS, CONSTRAINTS, "import httpx, httpx_sse; print('httpx', httpx.__version__)", what="the clients")

# A hang guard, not a performance limit (see toolenv): a read that takes longer is stuck.
READ_LIMIT = 120


def parse_header(text):
    name, _, value = text.partition(":")
    return name.strip(), value.strip()


def read_with_httpx_sse(arguments):
    """Each event as httpx-sse parses it, with when it arrived after the request went out."""
    import httpx
    from httpx_sse import connect_sse

    headers = dict(parse_header(header) for header in arguments.header)
    body = arguments.body.encode() if arguments.body is not None else None
    events = []
    with httpx.Client(timeout=READ_LIMIT) as client:
        sent = time.monotonic()
        with connect_sse(client, arguments.method, arguments.url, headers=headers, content=body) as source:
            source.response.raise_for_status()
            content_type = source.response.headers.get("content-type", "")
            for event in source.iter_sse():
                events.append({"event": event.event, "data": event.data, "id": event.id, "retry": event.retry, "at": time.monotonic() - sent})
                say(f"  httpx-sse: event {event.event!r} id {event.id!r} data {event.data[:60]!r} at {events[-1]['at']:.3f} s")
                if getattr(arguments, "max_events", None) and len(events) >= arguments.max_events:
                    # A client that has what it wanted and closes the stream (leaving the block
                    # closes the connection), as the MCP Python SDK does with each answer.
                    say("  httpx-sse: closing the stream")
                    break
    return events, content_type


def read_with_curl(arguments):
    """Each line curl -N prints, with when it arrived after the request went out."""
    curl = shutil.which("curl")
    if curl is None:
        return None
    command = [curl, "-sS", "-N", "-X", arguments.method, arguments.url]
    for header in arguments.header:
        command += ["-H", header]
    if arguments.body is not None:
        command += ["--data-binary", arguments.body]
    lines = []
    sent = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    timer = threading.Timer(READ_LIMIT, process.kill)
    timer.start()
    try:
        for raw in process.stdout:
            lines.append({"line": raw.decode("utf-8", "replace").rstrip("\r\n"), "at": time.monotonic() - sent})
        status = process.wait()
    finally:
        timer.cancel()
    if status != 0:
        raise ToolError(f"curl -N exited with {status}: {' '.join(line['line'] for line in lines)[-400:]}")
    return lines


def check_sse(arguments):
    report = toolenv.Report(TOOL, "sse")
    expected = json.loads(Path(arguments.expect).read_text())
    report.section = "httpx-sse"
    events, content_type = read_with_httpx_sse(arguments)
    # A block with no data (a comment, `: keep-alive`, then a blank line) dispatches no event by
    # the format's rules; httpx-sse 0.4.3 yields an empty `message` event for it. Expected as
    # `{"comment": true}`, checked to be exactly that, and set aside.
    kept = []
    for index, want in enumerate(expected):
        if want.get("comment"):
            got = events[len(kept)] if len(kept) < len(events) else None
            if got is not None and got["data"] == "" and got["event"] == "message":
                report.finding(f"httpx-sse yields an empty message event for the comment at position {index} (the format dispatches none)")
                events.pop(len(kept))
            continue
        kept.append(want)
    expected = kept
    report.check(content_type.startswith("text/event-stream"), "the Content-Type is text/event-stream", content_type)
    report.equal(len(events), len(expected), "the number of events")
    for index, (got, want) in enumerate(zip(events, expected)):
        for field in ("event", "data", "id", "retry"):
            if field in want:
                report.equal(got[field], want[field], f"event {index}'s {field}")
        if "after" in want:
            report.check(got["at"] >= want["after"] - 0.01, f"event {index} arrives no sooner than {want['after']} s after the request", round(got["at"], 3))
        if index + 1 < len(expected) and expected[index + 1].get("after", 0) - want.get("after", 0) >= arguments.apart:
            # The next event is due much later: this one came before it, in a read of its own.
            report.check(got["at"] < events[index + 1]["at"] if index + 1 < len(events) else False, f"event {index} arrives before event {index + 1}", round(got["at"], 3))
    report.extra["events"] = events

    report.section = "curl -N"
    lines = read_with_curl(arguments)
    if lines is None:
        report.finding("curl is not installed here: the curl -N read was skipped (CI installs curl)")
    else:
        comments = [line for line in lines if line["line"].startswith(":")]
        report.equal(len(comments), arguments.comments, "the number of comment lines curl printed")
        data_lines = [line for line in lines if line["line"].startswith("data:")]
        report.equal(len(data_lines), sum(1 for want in expected if "data" in want), "the number of data lines curl printed")
        wanted = [want for want in expected if "data" in want]
        for index, (line, want) in enumerate(zip(data_lines, wanted)):
            first_line = want["data"].split("\n")[0]
            report.equal(line["line"], f"data: {first_line}", f"data line {index}")
            if "after" in want:
                report.check(line["at"] >= want["after"] - 0.01, f"data line {index} arrives no sooner than {want['after']} s after the request", round(line["at"], 3))
        report.extra["curl"] = lines
    return report.finish()


def read_events(arguments):
    """The events of one response as httpx-sse parses them, each with its arrival time, for the
    test to check (`events` in the closing line)."""
    report = toolenv.Report(TOOL, "read")
    events, content_type = read_with_httpx_sse(arguments)
    report.check(content_type.startswith("text/event-stream"), "the Content-Type is text/event-stream", content_type)
    report.check(len(events) > 0, "at least one event arrived", len(events))
    report.extra["events"] = events
    return report.finish()


def install(arguments):
    return toolenv.Report(TOOL, "install").finish()


def parser():
    top = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = top.add_subparsers(dest="command", required=True)
    sse = commands.add_parser("sse", help="read a URL's server-sent events with httpx-sse and curl -N, and check them")
    sse.add_argument("--url", required=True)
    sse.add_argument("--method", default="GET")
    sse.add_argument("--body")
    sse.add_argument("--header", action="append", default=[], help="NAME:VALUE, repeatable")
    sse.add_argument("--expect", required=True, help="a JSON file: the events expected, in order")
    sse.add_argument("--comments", type=int, default=0, help="how many comment lines the stream has")
    sse.add_argument("--apart", type=float, default=0.3, help="the least gap between two events' times for their arrival order to be checked")
    sse.set_defaults(run=check_sse)
    read = commands.add_parser("read", help="read a URL's server-sent events with httpx-sse and print them, each with its arrival time")
    read.add_argument("--url", required=True)
    read.add_argument("--method", default="GET")
    read.add_argument("--body")
    read.add_argument("--header", action="append", default=[], help="NAME:VALUE, repeatable")
    read.add_argument("--max-events", type=int, help="close the stream after this many events, as a client that leaves early")
    read.set_defaults(run=read_events)
    commands.add_parser("install", help="install the clients and stop").set_defaults(run=install)
    return top


if __name__ == "__main__":
    sys.exit(toolenv.main(ENVIRONMENT, parser, __file__))
