#!/usr/bin/env python3
"""A stand-in for a streaming API (an LLM's server-sent events): written with the standard
library's sockets, not Airlock, so that what the stream tests relay and record is what a server
no one here wrote sent. Listens on 127.0.0.1 (port 0), prints `port N` when ready, and serves
each connection on a thread of its own (one request per connection, then it closes).

    GET|POST /events?count=N&pause=S   N events (`id: k`, `data: {"n":k}`), S seconds before each
                                       after the first; an `Authorization` header is echoed in a
                                       last event (`data: {"echo":"<value>"}`), as a careless API
                                       might; chunked, one chunk per event
    GET|POST /gated?gate=NAME          one event at once, then the last only once
                                       /release?gate=NAME was requested (any connection)
    GET /release?gate=NAME             opens the gate; answers 200 `released`
    GET /standing?gate=NAME            a stream's head and no event, ended once the gate opens
                                       (an MCP server's standing GET stream)
    GET /page?gate=NAME                an HTML page whose EventSource reads /gated?gate=NAME and
                                       closes on its first event (`window.received`,
                                       `window.finished`, as browser_clients.py reads them)
    GET|POST /split?gate=NAME          one event echoing the `Authorization` header
                                       (`data: {"echo":"<value>"}`), cut in the middle of the
                                       value: the first half at once, the rest only once the gate
                                       opens, each half a chunk of its own
    GET /flood?bytes=N&name=NAME       N bytes as fast as the connection takes them (chunked,
                                       64 KiB chunks, byte i is i % 251), with a send buffer of
                                       64 KiB; counts the bytes handed to the kernel under NAME
    GET /ws-flood?bytes=N&name=NAME    a WebSocket (the upgrade answered by hand, RFC 6455) that
                                       sends N bytes as fast as the connection takes them, in binary
                                       messages of 60000 bytes (the same pattern), then closes with
                                       1000; counts like /flood
    GET /sent?name=NAME                that count, as text (0 before the flood began)

    python3 sse_upstream.py
"""
import base64
import hashlib
import signal
import socket
import socketserver
import sys
import threading
import time
from urllib.parse import parse_qs, urlsplit

GATES = {}
GATES_LOCK = threading.Lock()
SENT = {}
SENT_LOCK = threading.Lock()
# 64 KiB of the flood's pattern, which starts again every 251 bytes: 65536 % 251 != 0, so each
# chunk is cut from the pattern at the right phase.
PATTERN = bytes(i % 251 for i in range(65536 + 251))
# A hang guard, not a timing: a gate nobody opens ends its stream after this.
GATE_LIMIT = 120


def gate(name):
    with GATES_LOCK:
        return GATES.setdefault(name, threading.Event())


def head(status, fields):
    lines = [b"HTTP/1.1 " + status] + [name + b": " + value for name, value in fields]
    return b"\r\n".join(lines) + b"\r\n\r\n"


def chunk(data):
    return b"%x\r\n" % len(data) + data + b"\r\n"


def event(identifier, data):
    return b"id: " + identifier + b"\ndata: " + data + b"\n\n"


STREAM_HEAD = head(b"200 OK", [
    (b"Content-Type", b"text/event-stream"),
    (b"Cache-Control", b"no-cache"),
    (b"X-Upstream", b"one"),
    (b"X-Upstream", b"two"),
    (b"Transfer-Encoding", b"chunked"),
    (b"Connection", b"close"),
])


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        connection = self.request
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        data = b""
        while b"\r\n\r\n" not in data:
            received = connection.recv(65536)
            if not received:
                return
            data += received
        request_head, _, body = data.partition(b"\r\n\r\n")
        lines = request_head.split(b"\r\n")
        method, target, _ = lines[0].split(b" ", 2)
        fields = {}
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            fields[name.strip().lower()] = value.strip()
        length = int(fields.get(b"content-length", b"0"))
        while len(body) < length:
            received = connection.recv(65536)
            if not received:
                break
            body += received
        url = urlsplit(target.decode())
        query = {name: values[-1] for name, values in parse_qs(url.query).items()}
        if url.path == "/release":
            gate(query.get("gate", "")).set()
            text = b"released"
            connection.sendall(head(b"200 OK", [(b"Content-Type", b"text/plain"), (b"Content-Length", str(len(text)).encode()), (b"Connection", b"close")]) + text)
            return
        if url.path == "/events":
            count = int(query.get("count", "3"))
            pause = float(query.get("pause", "0.25"))
            connection.sendall(STREAM_HEAD)
            for number in range(1, count + 1):
                if number > 1:
                    time.sleep(pause)
                connection.sendall(chunk(event(str(number).encode(), b'{"n":%d}' % number)))
            if b"authorization" in fields:
                connection.sendall(chunk(event(b"echo", b'{"echo":"' + fields[b"authorization"] + b'"}')))
            connection.sendall(b"0\r\n\r\n")
            return
        if url.path == "/sent":
            with SENT_LOCK:
                text = str(SENT.get(query.get("name", ""), 0)).encode()
            connection.sendall(head(b"200 OK", [(b"Content-Type", b"text/plain"), (b"Content-Length", str(len(text)).encode()), (b"Connection", b"close")]) + text)
            return
        if url.path == "/ws-flood":
            total = int(query.get("bytes", "0"))
            name = query.get("name", "")
            accept = base64.b64encode(hashlib.sha1(fields.get(b"sec-websocket-key", b"") + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
            connection.sendall(head(b"101 Switching Protocols", [(b"Upgrade", b"websocket"), (b"Connection", b"Upgrade"), (b"Sec-WebSocket-Accept", accept)]))
            sent = 0
            while sent < total:
                size = min(60000, total - sent)
                phase = sent % 251
                connection.sendall(bytes([0x82, 126]) + size.to_bytes(2, "big") + PATTERN[phase:phase + size])
                sent += size
                with SENT_LOCK:
                    SENT[name] = sent
            connection.sendall(bytes([0x88, 2]) + (1000).to_bytes(2, "big"))
            # Until the client's close comes back (or the connection ends).
            connection.settimeout(GATE_LIMIT)
            try:
                while connection.recv(65536):
                    pass
            except OSError:
                pass
            return
        if url.path == "/flood":
            total = int(query.get("bytes", "0"))
            name = query.get("name", "")
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
            connection.sendall(head(b"200 OK", [(b"Content-Type", b"application/octet-stream"), (b"Transfer-Encoding", b"chunked"), (b"Connection", b"close")]))
            sent = 0
            while sent < total:
                size = min(65536, total - sent)
                phase = sent % 251
                connection.sendall(chunk(PATTERN[phase:phase + size]))
                sent += size
                with SENT_LOCK:
                    SENT[name] = sent
            connection.sendall(b"0\r\n\r\n")
            return
        if url.path == "/split":
            whole = event(b"echo", b'{"echo":"' + fields.get(b"authorization", b"") + b'"}')
            cut = whole.index(b'{"echo":"') + len(b'{"echo":"') + len(fields.get(b"authorization", b"")) // 2
            connection.sendall(STREAM_HEAD + chunk(whole[:cut]))
            gate(query.get("gate", "")).wait(GATE_LIMIT)
            connection.sendall(chunk(whole[cut:]) + b"0\r\n\r\n")
            return
        if url.path == "/standing":
            connection.sendall(STREAM_HEAD)
            gate(query.get("gate", "")).wait(GATE_LIMIT)
            connection.sendall(b"0\r\n\r\n")
            return
        if url.path == "/page":
            name = query.get("gate", "")
            page = ("<!doctype html><meta charset=\"utf-8\"><link rel=\"icon\" href=\"data:,\"><title>leaves</title><script>"
                    "window.received = []; window.finished = false; const opened = performance.now();"
                    f"const source = new EventSource('/gated?gate={name}');"
                    "source.onmessage = (event) => { window.received.push({type: event.type, data: event.data, lastEventId: event.lastEventId, at: performance.now() - opened});"
                    " source.close(); window.finished = true; };"
                    "</script>").encode()
            connection.sendall(head(b"200 OK", [(b"Content-Type", b"text/html; charset=utf-8"), (b"Content-Length", str(len(page)).encode()), (b"Connection", b"close")]) + page)
            return
        if url.path == "/gated":
            connection.sendall(STREAM_HEAD + chunk(event(b"1", b'{"n":1}')))
            gate(query.get("gate", "")).wait(GATE_LIMIT)
            connection.sendall(chunk(event(b"2", b'{"n":2,"last":true}')) + b"0\r\n\r\n")
            return
        text = b"not found"
        connection.sendall(head(b"404 Not Found", [(b"Content-Length", str(len(text)).encode()), (b"Connection", b"close")]) + text)


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    # A test process may start children with SIGTERM ignored or blocked: stop on it regardless.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with Server(("127.0.0.1", 0), Handler) as server:
        print(f"port {server.server_address[1]}", flush=True)
        server.serve_forever()


if __name__ == "__main__":
    main()
