#!/usr/bin/env python3
"""A stand-in for an API that changes between a recording and its verification (issue 40): the
standard library's http.server, not Airlock. Listens on 127.0.0.1 (port 0) and prints `port N`
when ready. Version 1 answers until `/__admin/version?set=2` switches every route to version 2.

    GET /users/1        {"id": 1, "name": "Ada", "updatedAt": "…", "requestId": "r-N"};
                        v2: "id" is a string, "updatedAt" null
    GET /health         {"ok": true}; v2 adds the header X-Added
    GET /status         200 {"state": "up"}; v2 503
    GET /events         server-sent events `message` {"n": 1}, `message` {"n": 2};
                        v2: the second is `update` with {"n": "2"}
    GET /stable         {"same": [1, 2]}, in both versions
    GET /feed           server-sent events that never end: one `tick` at once, then nothing
                        until the client closes the connection
    GET /accounts/ID    200 {"account": ID} when the X-Account header is ID too, else 404;
                        v2 adds "owner": {"account": ID} and the header Set-Cookie: session=s3cr3t-ID
    GET /profile        {"name": "Ada"}; v2 answers text/html instead
    GET /list           {"items": [{"n": 1}]}; v2 {"items": [{"n": 1}, {"n": "2"}, {"n": 3}]}
    GET /__admin/version?set=N    switches the version (not counted)
    GET /__admin/count            how many other requests arrived, as {"count": N}

    python3 drift_upstream.py
"""
import json
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

STATE = {"version": 1, "count": 0}
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type="application/json", extra=()):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for name, value in extra:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        parts = urlsplit(self.path)
        path = parts.path
        if path.startswith("/__admin/"):
            with LOCK:
                if path == "/__admin/version":
                    STATE["version"] = int(parse_qs(parts.query)["set"][0])
                count, version = STATE["count"], STATE["version"]
            return self.send(200, {"count": count, "version": version})
        with LOCK:
            STATE["count"] += 1
            count, version = STATE["count"], STATE["version"]
        if path == "/users/1":
            body = {"id": 1, "name": "Ada", "updatedAt": "2026-11-27T10:00:00Z", "requestId": "r-%d" % count}
            if version == 2:
                body = {"id": "1", "name": "Ada", "updatedAt": None, "requestId": "r-%d" % count}
            return self.send(200, body)
        if path == "/health":
            return self.send(200, {"ok": True}, extra=[("X-Added", "yes")] if version == 2 else [])
        if path == "/status":
            return self.send(503 if version == 2 else 200, {"state": "up"})
        if path == "/profile":
            if version == 2:
                return self.send(200, b"<!doctype html><title>Ada</title>", content_type="text/html; charset=utf-8")
            return self.send(200, {"name": "Ada"})
        if path == "/list":
            items = [{"n": 1}, {"n": "2"}, {"n": 3}] if version == 2 else [{"n": 1}]
            return self.send(200, {"items": items})
        if path == "/stable":
            return self.send(200, {"same": [1, 2]})
        if path == "/events":
            second = b'event: update\ndata: {"n": "2"}\n\n' if version == 2 else b'event: message\ndata: {"n": 2}\n\n'
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for event in [b'event: message\ndata: {"n": 1}\n\n', second]:
                self.wfile.write(b"%x\r\n" % len(event) + event + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            return
        if path == "/feed":
            event = b'event: tick\ndata: {"n": 1}\n\n'
            head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
            # The head and the first event in one write; then the stream stays open.
            self.wfile.write(head + b"%x\r\n" % len(event) + event + b"\r\n")
            self.wfile.flush()
            while self.connection.recv(1024):
                pass
            self.close_connection = True
            return
        if path.startswith("/accounts/"):
            account = unquote(path[len("/accounts/"):])
            if self.headers.get("X-Account") == account:
                if version == 2:
                    return self.send(200, {"account": account, "owner": {"account": account}},
                                     extra=[("Set-Cookie", "session=s3cr3t-%s; Path=/; HttpOnly" % account)])
                return self.send(200, {"account": account})
            return self.send(404, {"error": "no such account"})
        self.send(404, {"error": "no route"})


def main():
    # A test process may start children with SIGTERM ignored or blocked: stop on it regardless.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print("port %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
