#!/usr/bin/env python3
"""Runs a WebSocket conversation with the client no one here wrote: PyPI's `websockets` 15.0.1.

    python3 Tests/Tools/websocket_client.py chat --url ws://127.0.0.1:PORT/chat
    python3 Tests/Tools/websocket_client.py conversation --url ws://127.0.0.1:PORT/chat [--token T]
    python3 Tests/Tools/websocket_client.py install

It installs what it needs itself, once, into a virtual environment under `.build/websocket-client/`
(`websockets` at the version pinned below; it has no dependencies), then runs again inside it. It
writes nowhere else.

`chat` plays the conversation of the stub file in MockServer's WebSockets article against a
server: it receives "welcome", sends a message the script passes over and one it waits for
("hello*"), receives "hi", has two messages echoed, and expects the server's close with code 4000
and reason "bye". `conversation` plays websocket_upstream.py's conversation (through `airlock
record`, or replayed by `airlock serve`) and prints what it received. Made for a test to drive as a child process, like the other scripts of
Tests/Tools: a line at least every 15 seconds while it works, and the last line one JSON object:
{"tool": "websocket_client", "command": ..., "ok": true|false, "problems": [...], "checks": N}.
Exit status: 0 ok, 1 problems, 2 the client could not be installed or the command could not run.
"""

import argparse
import os
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # nothing beside this script in the source tree

ROOT = Path(__file__).resolve().parents[2]
HOME = Path(os.environ.get("WEBSOCKET_CLIENT_HOME") or ROOT / ".build" / "websocket-client")
TOOL = "websocket_client"

# The version this script was verified with; websockets depends on nothing else.
REQUIREMENTS = ["websockets==15.0.1"]
CONSTRAINTS = ""

sys.path.insert(0, str(Path(__file__).resolve().parent))
import toolenv  # noqa: E402  (Tests/Tools' shared installation and result line)

ENVIRONMENT = toolenv.Environment(TOOL, HOME, REQUIREMENTS, CONSTRAINTS, "import websockets; print('websockets', websockets.__version__)", what="the client")

CALL_LIMIT = 30  # seconds for one message: a hang guard, not a performance limit


class Report(toolenv.Report):
    def __init__(self, command, strict=False):
        super().__init__(TOOL, command, strict)


def command_chat(arguments):
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    report = Report("chat")
    with connect(arguments.url, open_timeout=CALL_LIMIT, close_timeout=CALL_LIMIT) as socket:
        report.equal(socket.recv(timeout=CALL_LIMIT), "welcome", "the first message")
        socket.send("not yet")  # passed over: the script waits for "hello*"
        socket.send("hello there")
        report.equal(socket.recv(timeout=CALL_LIMIT), "hi", "the reply to hello")
        for text in ["one", "two"]:
            socket.send(text)
            report.equal(socket.recv(timeout=CALL_LIMIT), text, "an echoed message")
        try:
            extra = socket.recv(timeout=CALL_LIMIT)
            report.problem(f"expected the server to close, got a message {extra!r}")
        except ConnectionClosed as closed:
            received = closed.rcvd
            report.equal(received.code if received else None, 4000, "the close code")
            report.equal(received.reason if received else None, "bye", "the close reason")
    return report.finish()


def command_conversation(arguments):
    """The conversation of websocket_upstream.py, live through `airlock record` or replayed by
    `airlock serve`: every message received, with the seconds since the client's last send or
    receive, goes into the result line for the test to compare."""
    import base64
    import json
    import time

    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    report = Report("conversation")
    received = []
    last = time.monotonic()

    def receive(what):
        nonlocal last
        message = socket.recv(timeout=CALL_LIMIT)
        now = time.monotonic()
        if isinstance(message, bytes):
            received.append({"binary": base64.b64encode(message).decode(), "after": now - last})
        else:
            received.append({"text": message, "after": now - last})
        last = now
        report.check(True, f"received {what}")
        return message

    def send(message):
        nonlocal last
        socket.send(message)
        last = time.monotonic()

    # No proxy unless one is given (not the environment's): the test says where the client goes.
    with connect(arguments.url, subprotocols=["chat.v1"], proxy=arguments.proxy, open_timeout=CALL_LIMIT, close_timeout=CALL_LIMIT) as socket:
        report.equal(socket.subprotocol, "chat.v1", "the negotiated subprotocol")
        report.equal(receive("the greeting"), "welcome", "the greeting")
        send("hello")
        report.equal(receive("the echo"), "echo: hello", "the echo of hello")
        send(json.dumps({"type": "auth", "token": arguments.token}))
        receive("the echo of the token message")
        send(b"\x10\x20")
        report.equal(receive("the echo of two bytes"), b"echo: \x10\x20", "the echo of two bytes")
        send("binary please")
        report.equal(receive("the binary frame"), bytes([0x00, 0x01, 0x02, 0xFF, 0xFE]), "the binary frame")
        send("slow")
        report.equal(receive("the answer to slow"), "late", "the answer to slow")
        socket.ping().wait(CALL_LIMIT)
        report.check(True, "a ping is answered")
        send("bye")
        try:
            extra = socket.recv(timeout=CALL_LIMIT)
            report.problem(f"expected the server to close, got a message {extra!r}")
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
            reason = closed.rcvd.reason if closed.rcvd else None
            report.equal(code, 4001, "the close code")
            report.equal(reason, "done", "the close reason")
            report.extra["close"] = {"code": code, "reason": reason}
    report.extra["received"] = received
    report.extra["subprotocol"] = socket.subprotocol
    return report.finish()


def command_install(arguments):
    from importlib.metadata import version

    report = Report("install")
    report.extra.update({"venv": str(ENVIRONMENT.venv), "python": sys.version.split()[0], "websockets": version("websockets")})
    return report.finish()


def parser():
    top = argparse.ArgumentParser(prog="websocket_client.py", description=__doc__.split("\n\n")[0])
    commands = top.add_subparsers(dest="command", required=True)
    command = commands.add_parser("install", help="install (or reuse) websockets in .build/websocket-client and print its version")
    command.set_defaults(run=command_install)
    command = commands.add_parser("chat", help="run the WebSockets article's conversation against a server and check each message and the close")
    command.add_argument("--url", required=True, help="the stub's URL, e.g. ws://127.0.0.1:8080/chat")
    command.set_defaults(run=command_chat)
    command = commands.add_parser("conversation", help="run websocket_upstream.py's conversation (live or replayed) and print each message received")
    command.add_argument("--url", required=True, help="e.g. ws://127.0.0.1:8080/chat")
    command.add_argument("--token", default="not-a-secret", help="the token sent in a JSON message")
    command.add_argument("--proxy", default=None, help="an HTTP proxy to tunnel through with CONNECT, e.g. http://127.0.0.1:8080")
    command.set_defaults(run=command_conversation)
    return top


def main():
    return toolenv.main(ENVIRONMENT, parser, __file__)


if __name__ == "__main__":
    sys.exit(main())
