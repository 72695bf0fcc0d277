#!/usr/bin/env python3
"""A stand-in for a real API that answers with exact bytes: the head as written here (field
order, repeated and mixed-case names), bodies as given (gzip, chunked framing, binary, odd JSON).

Written with the standard library's sockets, not Airlock, so that what the fidelity tests compare
a replay against is what a server no one here wrote sent. Listens on 127.0.0.1 (port 0) and
prints `port N` when ready; serves keep-alive connections until the client closes them.

    python3 fidelity_upstream.py
"""
import gzip
import signal
import socket
import socketserver
import sys
import zlib

JSON_ODD = (
    b'{"b": 1,   "a": [0.1, 3.0e0, -0.0, 12345678901234567890, 9007199254740993],\n'
    b' "u": "caf\\u00e9 \\ud83d\\ude00 \xc3\xa9", "s": "a\\/b", "e": "",  "n": null}'
)


def head(status, fields):
    lines = [b"HTTP/1.1 " + status]
    lines += [name + b": " + value for name, value in fields]
    return b"\r\n".join(lines) + b"\r\n\r\n"


def sized(status, fields, body):
    return head(status, fields + [(b"Content-Length", str(len(body)).encode())]) + body


def chunked(status, fields, pieces):
    out = head(status, fields + [(b"Transfer-Encoding", b"chunked")])
    for piece in pieces:
        out += b"%x\r\n" % len(piece) + piece + b"\r\n"
    return out + b"0\r\n\r\n"


def answer(method, target, request_head, body):
    path = target.split(b"?", 1)[0]
    if path == b"/json-odd":
        return sized(b"200 OK", [(b"Content-Type", b"application/json")], JSON_ODD)
    if path == b"/ndjson":
        return sized(b"200 OK", [(b"Content-Type", b"application/x-ndjson")], b'{"a":1}\n{"b": 2.50}\n')
    if path == b"/form":
        return sized(b"200 OK", [(b"Content-Type", b"application/x-www-form-urlencoded")], b"b=2&a=1&x=%20y+z")
    if path == b"/binary":
        return sized(b"200 OK", [(b"Content-Type", b"application/octet-stream")], bytes(range(256)) * 4)
    if path == b"/gzip":
        data = gzip.compress(b'{"z": 1,  "a": [0.1, 3.0e0]}', mtime=0)
        return sized(b"200 OK", [(b"Content-Type", b"application/json"), (b"Content-Encoding", b"gzip"), (b"Vary", b"Accept-Encoding")], data)
    if path == b"/deflate":
        return sized(b"200 OK", [(b"Content-Type", b"text/plain"), (b"Content-Encoding", b"deflate")], zlib.compress(b"deflated text\n"))
    if path == b"/br":
        # Bytes a client must not read as plain text; Airlock keeps them as sent.
        return sized(b"200 OK", [(b"Content-Type", b"application/json"), (b"Content-Encoding", b"br")], b"\x8b\x05\x80" + b'{"br": true}' + b"\x03")
    if path == b"/chunked":
        return chunked(b"200 OK", [(b"Content-Type", b"text/plain; charset=utf-8")], [b"hello ", b"chunked ", b"w\xc3\xb6rld"])
    if path == b"/empty":
        return sized(b"200 OK", [(b"X-Empty", b"yes")], b"")
    if path == b"/no-content":
        return head(b"204 No Content", [(b"X-Request-Id", b"r-204")])
    if path == b"/not-modified":
        return head(b"304 Not Modified", [(b"ETag", b'"v1"'), (b"Cache-Control", b"max-age=60")])
    if path == b"/cookies":
        return sized(b"200 OK", [
            (b"Set-Cookie", b"a=1; Path=/; Expires=Wed, 21 Oct 2037 07:28:00 GMT"),
            (b"Content-Type", b"text/plain"),
            (b"Set-Cookie", b"b=2; Path=/; HttpOnly"),
        ], b"two cookies")
    if path == b"/headers":
        return sized(b"200 OK", [
            (b"X-Dup", b"one"), (b"Content-Type", b"text/plain"), (b"x-dup", b"two"),
            (b"X-MiXeD-CaSe", b"Value With  Spaces"), (b"X-Empty-Value", b""),
        ], b"headers")
    if path == b"/secrets":
        # Words and numbers that also are the request's secrets, and one real echo of a token.
        return sized(b"200 OK", [(b"Content-Type", b"application/json")],
                     b'{"items": [1, 2], "updated_date": "2026-11-24", "pin_count": 1234,'
                     b' "echo": "Bearer tok_abcdef123", "note": "item date 1234"}')
    return sized(b"404 Not Found", [(b"Content-Type", b"text/plain")], b"no case " + path)


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        while True:
            request_line = self.rfile.readline()
            if not request_line:
                return
            parts = request_line.strip().split(b" ")
            if len(parts) != 3:
                return
            method, target = parts[0], parts[1]
            if target.startswith(b"http://"):
                target = b"/" + target.split(b"/", 3)[3] if target.count(b"/") >= 3 else b"/"
            fields = []
            while True:
                line = self.rfile.readline()
                if line in (b"\r\n", b"\n", b""):
                    break
                name, _, value = line.partition(b":")
                fields.append((name.strip().lower(), value.strip()))
            length = int(dict(fields).get(b"content-length", b"0"))
            body = self.rfile.read(length) if length else b""
            self.wfile.write(answer(method, target, fields, body))
            self.wfile.flush()
            if dict(fields).get(b"connection", b"").lower() == b"close":
                return


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


if __name__ == "__main__":
    # A test process may start children with SIGTERM ignored or blocked: stop on it regardless.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with Server(("127.0.0.1", 0), Handler) as server:
        print("port", server.server_address[1], flush=True)
        server.serve_forever()
