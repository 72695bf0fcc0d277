#!/usr/bin/env python3
"""Reads server-sent events with the client no one here wrote: PyPI's `httpx-sse` 0.4.3 on httpx 0.28.1.

    python3 Tests/Tools/sse_client.py read --url http://127.0.0.1:PORT/events [--method POST] [--body TEXT]
    python3 Tests/Tools/sse_client.py install

(Tests/Tools/README.md says what each subcommand does.)

It installs what it needs itself, once, into a virtual environment under `.build/sse-client/`
(`SSE_CLIENT_HOME=DIR` moves it; every dependency pinned below), then runs again inside it. It
writes nothing else.

Made for a test to drive as a child process: everything goes to standard output (standard error
is joined to it), a line at least every 15 seconds while it installs, and the last line is one
JSON object: {"tool": "sse_client", "command": ..., "ok": true|false, "problems": [...],
"findings": [], "checks": N, "events": [...], ...}. Exit status: 0 ok, 1 problems, 2 the client
could not be installed or the command could not run.
"""

import argparse
import os
import sys
import time
from pathlib import Path

sys.dont_write_bytecode = True  # nothing beside this script in the source tree

ROOT = Path(__file__).resolve().parents[2]
HOME = Path(os.environ.get("SSE_CLIENT_HOME") or ROOT / ".build" / "sse-client")
TOOL = "sse_client"

# The versions this script was verified with, and every package they pull in, pinned as
# constraints so that a fresh machine installs the same set.
REQUIREMENTS = ["httpx-sse==0.4.3", "httpx==0.28.1"]
CONSTRAINTS = """\
anyio==4.16.0
certifi==2026.10.19.post1
h11==0.16.0
httpcore==1.0.9
idna==3.20
typing-extensions==4.16.0
"""
sys.path.insert(0, str(Path(__file__).resolve().parent))
import toolenv  # noqa: E402  (Tests/Tools' shared installation and result line)

ENVIRONMENT = toolenv.Environment(
    TOOL, HOME, REQUIREMENTS, CONSTRAINTS, "import httpx, httpx_sse; print('httpx', httpx.__version__, 'httpx-sse ok')", what="the client"
)

# A hang guard, not a performance limit: a read that takes longer is stuck.
READ_LIMIT = 120


def command_read(arguments):
    """Reads the events of one response with `httpx_sse.connect_sse` (which requires
    `text/event-stream`), each with when it arrived after the request went out."""
    import httpx
    from httpx_sse import connect_sse

    report = toolenv.Report(TOOL, "read")
    events = []
    headers = {name: value for name, _, value in (field.partition(":") for field in arguments.header)}
    started = time.monotonic()
    with httpx.Client(timeout=READ_LIMIT) as client:
        body = arguments.body.encode("utf-8") if arguments.body is not None else None
        with connect_sse(client, arguments.method, arguments.url, content=body, headers=headers) as source:
            report.equal(source.response.status_code, 200, "the status")
            for event in source.iter_sse():
                at = time.monotonic() - started
                toolenv.say(f"  event {event.event!r} id={event.id!r} data={event.data!r} at {at:.3f} s")
                events.append({"event": event.event, "data": event.data, "id": event.id, "retry": event.retry, "at": at})
    report.check(len(events) > 0, "at least one event arrived", len(events))
    report.extra["events"] = events
    return report.finish()


def command_install(arguments):
    from importlib.metadata import version

    report = toolenv.Report(TOOL, "install")
    report.extra["versions"] = {name: version(name) for name in ("httpx", "httpx-sse")}
    toolenv.say(f"sse_client: httpx {report.extra['versions']['httpx']}, httpx-sse {report.extra['versions']['httpx-sse']}")
    return report.finish()


def parser():
    top = argparse.ArgumentParser(prog="sse_client.py", description=__doc__.split("\n\n")[0])
    commands = top.add_subparsers(dest="command", required=True)

    command = commands.add_parser("install", help="install (or reuse) httpx-sse in .build/sse-client and print its version")
    command.set_defaults(run=command_install)

    command = commands.add_parser("read", help="read the events of one response and print them, each with its arrival time")
    command.add_argument("--url", required=True, help="the URL to read, e.g. http://127.0.0.1:8080/events")
    command.add_argument("--method", default="GET", help="the method (LLM APIs stream answers to POST)")
    command.add_argument("--body", help="a request body (UTF-8)")
    command.add_argument("--header", action="append", default=[], help="a request header, Name:value (repeatable)")
    command.set_defaults(run=command_read)
    return top


def main():
    return toolenv.main(ENVIRONMENT, parser, __file__)


if __name__ == "__main__":
    sys.exit(main())
