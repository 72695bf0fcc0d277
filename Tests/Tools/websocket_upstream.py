#!/usr/bin/env python3
"""A WebSocket upstream to record from, served by the server no one here wrote: PyPI's `websockets`
15.0.1 (its threaded synchronous server), in the client's environment (`websocket_client.py`).

    python3 Tests/Tools/websocket_upstream.py serve [--pause SECONDS]

It listens on a free loopback port and prints `port N` when it is ready (after any installation
lines), then serves until it is stopped (SIGTERM or Ctrl-C). It accepts the subprotocol
`chat.v1` when the client offers it, and on each connection:

- greets: sends the text "welcome";
- answers a text message with "echo: " and the message, a binary one with b"echo: " and its bytes;
- "binary please": sends the binary frame 00 01 02 ff fe;
- "slow": waits --pause seconds (0.3 by default), then sends "late";
- "bye": closes with code 4001 and reason "done".

It installs like the client (see Tests/Tools/README.md): the same virtual environment under
`.build/websocket-client/` (`WEBSOCKET_CLIENT_HOME` moves it), and writes nowhere else.
"""

import argparse
import sys
import time
from pathlib import Path

sys.dont_write_bytecode = True  # nothing beside this script in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import toolenv  # noqa: E402
import websocket_client  # noqa: E402  (its environment: websockets, pinned)

BINARY = bytes([0x00, 0x01, 0x02, 0xFF, 0xFE])


def command_serve(arguments):
    from websockets.sync.server import serve

    def conversation(socket):
        socket.send("welcome")
        for message in socket:
            if isinstance(message, bytes):
                socket.send(b"echo: " + message)
            elif message == "bye":
                socket.close(4001, "done")
                return
            elif message == "binary please":
                socket.send(BINARY)
            elif message == "slow":
                time.sleep(arguments.pause)
                socket.send("late")
            else:
                socket.send("echo: " + message)

    with serve(conversation, "127.0.0.1", 0, subprotocols=["chat.v1"]) as server:
        toolenv.say(f"port {server.socket.getsockname()[1]}")
        server.serve_forever()
    return 0


def parser():
    top = argparse.ArgumentParser(prog="websocket_upstream.py", description=__doc__.split("\n\n")[0])
    commands = top.add_subparsers(dest="command", required=True)
    command = commands.add_parser("serve", help="serve the conversation on a free loopback port, printing `port N` when ready")
    command.add_argument("--pause", type=float, default=0.3, help="the seconds before \"late\" answers \"slow\"")
    command.set_defaults(run=command_serve)
    return top


def main():
    return toolenv.main(websocket_client.ENVIRONMENT, parser, __file__)


if __name__ == "__main__":
    sys.exit(main())
