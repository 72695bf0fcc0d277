#!/usr/bin/env python3
"""Talks HTTP/2 to Airlock's server with a client no one here wrote: PyPI's httpx with h2.

    python3 Tests/Tools/http2_clients.py get --url URL [--url URL ...] [--tls-ca FILE]
    python3 Tests/Tools/http2_clients.py serve-http1 --tls DIR
    python3 Tests/Tools/http2_clients.py install

(`--help` lists every subcommand; Tests/Tools/README.md says what each one checks.)

It installs what it needs itself, once, into a virtual environment under `.build/http2-clients/`
(httpx and h2 from PyPI at the versions pinned below, and trustme for `serve-http1`, every
dependency pinned too), then runs again inside it. It writes nothing else but `serve-http1`'s CA
certificate.

`get` sends a GET to each URL at once, over one HTTP/2 connection, with httpx's client made for
HTTP/2 only (`http2=True, http1=False`): h2c with prior knowledge for `http://` URLs, h2 through
ALPN for `https://` ones (trusting `--tls-ca`). Each response's protocol, status, fields and body
go in `responses` in the closing line, in the order of the URLs, with a number naming the
connection each came on (`connection`: equal for responses that shared one).

`serve-http1 --tls DIR` is an upstream that speaks HTTP/1.1 alone under TLS (Python's own
`http.server`, ALPN offering `http/1.1` only), its certificate (for `localhost` and `127.0.0.1`)
from a CA PyPI's `trustme` makes for the run, whose certificate it writes to DIR/ca.pem. It
prints `listening on 127.0.0.1:PORT`, then answers every GET with a JSON object naming the
request's protocol and the ALPN protocol of its connection (`{"protocol": "HTTP/1.1", "alpn":
"http/1.1"}`) until it is stopped.

Made for a test to drive as a child process: everything goes to standard output (standard error
is joined to it), a line at least every 15 seconds while it works, and the last line is one JSON
object: {"tool": "http2_clients", "command": ..., "ok": true|false, "problems": [...],
"findings": [...], "checks": N, "responses": [...]}. Exit status: 0 ok, 1 problems, 2 the client
could not be installed or the command could not run.
"""

import argparse
import os
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # nothing beside this script in the source tree

ROOT = Path(__file__).resolve().parents[2]
HOME = Path(os.environ.get("HTTP2_CLIENTS_HOME") or ROOT / ".build" / "http2-clients")
TOOL = "http2_clients"

# The versions this script was verified with (httpx 0.28.1, h2 4.4.1, the newest releases), and
# every package they pulled in, pinned as constraints so that a fresh machine installs the same set.
REQUIREMENTS = ["httpx==0.28.1", "h2==4.4.1", "trustme==1.2.1"]
CONSTRAINTS = """\
anyio==4.16.0
certifi==2026.10.19.post1
cffi==2.1.1
cryptography==50.0.2
h11==0.16.0
hpack==4.2.0
httpcore==1.0.9
hyperframe==6.1.0
idna==3.20
pycparser==3.12
typing_extensions==4.16.0
"""
sys.path.insert(0, str(Path(__file__).resolve().parent))
import toolenv  # noqa: E402  (Tests/Tools' shared installation and result line)

ENVIRONMENT = toolenv.Environment(TOOL, HOME, REQUIREMENTS, CONSTRAINTS, "import httpx, h2; print('httpx', httpx.__version__, 'h2', h2.__version__)", what="the client")

# A hang guard, not a performance limit (see toolenv): a request that takes longer is stuck.
REQUEST_LIMIT = 120


def get(arguments):
    """Every URL at once over one HTTP/2 connection; each response as the client read it."""
    import asyncio

    import httpx

    report = toolenv.Report(TOOL, "get")

    async def run():
        verify = arguments.tls_ca or True
        async with httpx.AsyncClient(http1=False, http2=True, verify=verify, timeout=REQUEST_LIMIT) as client:
            return await asyncio.gather(*(client.get(url) for url in arguments.url), return_exceptions=True)

    results = asyncio.run(run())
    responses = []
    for url, result in zip(arguments.url, results):
        if isinstance(result, Exception):
            report.problem(f"{url}: {type(result).__name__}: {result}")
            responses.append({"url": url, "error": f"{type(result).__name__}: {result}"})
            continue
        toolenv.say(f"  {url}: {result.http_version} {result.status_code}, {len(result.content)} bytes")
        responses.append({
            "url": url,
            "httpVersion": result.http_version,
            "status": result.status_code,
            "headers": [[name.decode("latin-1"), value.decode("latin-1")] for name, value in result.headers.raw],
            "body": result.text,
            # The connection the response came on (its network stream, while the client is open).
            "connection": id(result.extensions.get("network_stream")),
        })
    report.extra["responses"] = responses
    return report.finish()


def serve_http1(arguments):
    """An HTTP/1.1-only upstream under TLS, until stopped."""
    import http.server
    import json
    import ssl

    import trustme

    authority = trustme.CA()
    issued = authority.issue_cert("localhost", "127.0.0.1")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    issued.configure_cert(context)
    context.set_alpn_protocols(["http/1.1"])

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            body = json.dumps({"protocol": self.request_version, "alpn": self.connection.selected_alpn_protocol()}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *arguments):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    authority.cert_pem.write_to_path(str(Path(arguments.tls) / "ca.pem"))
    toolenv.say(f"listening on 127.0.0.1:{server.server_address[1]}")
    server.serve_forever()
    return 0


def install(arguments):
    return toolenv.Report(TOOL, "install").finish()


def parser():
    top = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = top.add_subparsers(dest="command", required=True)
    fetch = commands.add_parser("get", help="GET each URL at once over one HTTP/2 connection with httpx and h2")
    fetch.add_argument("--url", action="append", required=True, help="repeatable: the requests go out at once")
    fetch.add_argument("--tls-ca", help="a PEM file of the CA to trust for https:// URLs")
    fetch.set_defaults(run=get)
    upstream = commands.add_parser("serve-http1", help="serve HTTP/1.1 alone under TLS (ALPN offering http/1.1 only), with a CA made for the run")
    upstream.add_argument("--tls", required=True, help="the folder the CA's certificate is written to (DIR/ca.pem)")
    upstream.set_defaults(run=serve_http1)
    commands.add_parser("install", help="install the client and stop").set_defaults(run=install)
    return top


if __name__ == "__main__":
    sys.exit(toolenv.main(ENVIRONMENT, parser, __file__))
