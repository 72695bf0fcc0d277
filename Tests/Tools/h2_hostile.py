#!/usr/bin/env python3
"""Feeds an HTTP/2 server hostile and malformed input, case by case, and says what it did.

    python3 Tests/Tools/h2_hostile.py run --port PORT [--host 127.0.0.1] [--path /] [--slow-path P]
                                          [--group G ...] [--case NAME ...] [--read-timeout S] [--stall-wait S]
    python3 Tests/Tools/h2_hostile.py list
    python3 Tests/Tools/h2_hostile.py install

A conformance-style probe in the spirit of h2spec (written here from RFC 9113 and RFC 7541, not
taken from h2spec, which needs Go): each case opens a plain TCP connection to the server, speaks
HTTP/2 with prior knowledge (h2c), sends the bytes of its case — frames built by hand, header
blocks encoded by hand where they must be wrong — and reads what comes back with
PyPI's `hyperframe` (frames) and `hpack` (the server's header blocks). What the server did is one
of:

- `goaway CODE` — it ended the connection with GOAWAY and that error code;
- `rst_stream CODE` — it reset the stream with that code;
- `response STATUS` — it answered the stream (a HEADERS frame with `:status`);
- `ignored` — the PING sent after the hostile bytes came back acknowledged, nothing else happened;
- `closed` — the connection closed (or was reset) without a GOAWAY;
- `timeout` — nothing of the above within the read timeout: the server stalled.

Each case states what the RFC requires (where it allows several reactions, any of them passes:
a connection error may be a GOAWAY with the code or just a close, RFC 9113 §5.4.1's SHOULD; a
stream error may be an RST_STREAM or GOAWAY with the code, or a close, §5.4 lets an endpoint
treat a stream error as a connection error). After every case two fresh connections must get an
answer from the server: an HTTP/2 GET and an HTTP/1.1 GET of `--path` (any status): a case after
which the server answers neither crashed or stalled it, and fails whatever its own outcome.

Every read has a timeout (`--read-timeout`, 30 s by default), so the probe never hangs: a read
that times out is the server stalling. The `slow` group waits up to `--stall-wait` seconds (120
by default) for the server to end a connection or stream the client left half-open: run it
against a server with short timeouts.

Output as the other scripts of Tests/Tools (see toolenv.py): a line per case, `PROBLEM:` lines for
failures, and a last JSON line {"tool": "h2_hostile", "command": "run", "ok": ..., "problems":
[...], "findings": [...], "checks": N, "cases": [{"name", "group", "rfc", "expected", "outcome",
"events", "meets", "alive", "passed"}...]}. Exit status 0 when every case passed, 1 otherwise, 2
when the probe could not run. It uses the virtual environment of http2_clients.py (httpx and h2,
which brings hyperframe and hpack), installing it on first use the same way.
"""

import argparse
import select
import socket
import struct
import sys
import time
from pathlib import Path

sys.dont_write_bytecode = True  # nothing beside this script in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import http2_clients  # noqa: E402  (the same pinned environment: h2, hyperframe, hpack)
import toolenv  # noqa: E402

TOOL = "h2_hostile"
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

# Frame types and flags (RFC 9113 §6).
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
END_STREAM, ACK, END_HEADERS, PADDED, PRIORITY_FLAG = 0x1, 0x1, 0x4, 0x8, 0x20

# Error codes (RFC 9113 §7).
CODES = [
    "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED", "FRAME_SIZE_ERROR",
    "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
]

PROBE_PING = b"h2probe!"


def code_name(code):
    return CODES[code] if 0 <= code < len(CODES) else f"0x{code:x}"


# MARK: Building bytes by hand


def frame(kind, flags, stream, payload=b""):
    """One frame, exactly as given: nothing checked (that is the point)."""
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream & 0x7FFFFFFF) + payload


def settings(*pairs):
    return frame(SETTINGS, 0, 0, b"".join(struct.pack(">HI", key, value) for key, value in pairs))


def ping(data=PROBE_PING, flags=0):
    return frame(PING, flags, 0, data)


def window_update(stream, increment):
    return frame(WINDOW_UPDATE, 0, stream, struct.pack(">I", increment))


def rst_stream(stream, code):
    return frame(RST_STREAM, 0, stream, struct.pack(">I", code))


def hpack_int(value, prefix_bits, first=0):
    """RFC 7541 §5.1: an integer with an N-bit prefix, the pattern bits of the first byte in `first`."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first | value])
    out = [first | limit]
    value -= limit
    while value >= 128:
        out.append((value % 128) + 128)
        value //= 128
    out.append(value)
    return bytes(out)


def literal(name, value, indexed=False):
    """A literal field with a literal name, no Huffman (RFC 7541 §6.2.1 / §6.2.2): any bytes, any case."""
    name, value = name.encode() if isinstance(name, str) else name, value.encode() if isinstance(value, str) else value
    head = b"\x40" if indexed else b"\x00"
    return head + hpack_int(len(name), 7) + name + hpack_int(len(value), 7) + value


def block(fields):
    return b"".join(literal(name, value) for name, value in fields)


def request_fields(path, method="GET", extra=()):
    return [(":method", method), (":scheme", "http"), (":authority", "localhost"), (":path", path), *extra]


def headers(stream, fields_or_block, end_stream=True, end_headers=True):
    payload = fields_or_block if isinstance(fields_or_block, bytes) else block(fields_or_block)
    return frame(HEADERS, (END_STREAM if end_stream else 0) | (END_HEADERS if end_headers else 0), stream, payload)


# MARK: Reading what the server does


class Connection:
    """A raw h2c connection: sends bytes, reads frames with a timeout, keeps the events."""

    def __init__(self, host, port, timeout):
        self.timeout = timeout
        self.socket = socket.create_connection((host, port), timeout=timeout)
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""
        self.closed = False
        self.events = []
        self.server_settings = {}
        import hpack

        self.decoder = hpack.Decoder()
        self.decoder.max_header_list_size = 1 << 20

    def send(self, data):
        try:
            self.socket.sendall(data)
            return True
        except OSError:
            self.closed = True
            return False

    def handshake(self, client_settings=None):
        """Preface and SETTINGS; waits for the server's SETTINGS and acknowledges them."""
        self.send(PREFACE + (client_settings if client_settings is not None else settings()))
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline and not self.closed:
            got = self.next_frame(deadline)
            if got is None:
                break
            kind, flags, stream, payload = got
            if kind == SETTINGS and not flags & ACK:
                for index in range(0, len(payload) - len(payload) % 6, 6):
                    key, value = struct.unpack(">HI", payload[index:index + 6])
                    self.server_settings[key] = value
                self.send(frame(SETTINGS, ACK, 0))
                return True
        raise toolenv.ToolError(f"the server sent no SETTINGS within {self.timeout} s of the preface (stalled)")

    def next_frame(self, deadline):
        """The next frame (type, flags, stream, payload), or None on close or at the deadline
        (then `self.closed` tells which)."""
        while len(self.buffer) < 9 or len(self.buffer) < 9 + int.from_bytes(self.buffer[:3], "big"):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self.closed:
                return None
            self.socket.settimeout(remaining)
            try:
                chunk = self.socket.recv(65536)
            except socket.timeout:
                return None
            except OSError:
                chunk = b""
            if not chunk:
                self.closed = True
                return None
            self.buffer += chunk
        length = int.from_bytes(self.buffer[:3], "big")
        kind, flags = self.buffer[3], self.buffer[4]
        stream = int.from_bytes(self.buffer[5:9], "big") & 0x7FFFFFFF
        payload = self.buffer[9:9 + length]
        self.buffer = self.buffer[9 + length:]
        return kind, flags, stream, payload

    def react(self, stream=None, wait=None, settle=0.3, send_ping=True):
        """Reads until the server's first decisive reaction, and a little after it:

        `goaway`, `rst_stream` (on any stream), `response` (HEADERS with :status on `stream`, or
        any stream when `stream` is None), `ignored` (our PING's ACK, when `send_ping`),
        `closed`, `timeout`. Returns (kind, detail); the events read are in `self.events`."""
        if send_ping:
            self.send(ping())
        deadline = time.monotonic() + (wait if wait is not None else self.timeout)
        first = None
        while True:
            got = self.next_frame(deadline)
            if got is None:
                if self.closed:
                    self.events.append("closed")
                    return first or ("closed", None)
                return first or ("timeout", None)
            event = self.record(got, stream)
            if event and first is None:
                first = event
                deadline = min(deadline, time.monotonic() + settle)

    def record(self, got, stream):
        """Notes one frame in the events; returns it as a decisive reaction, if it is one."""
        kind, flags, frame_stream, payload = got
        if kind == GOAWAY and len(payload) >= 8:
            last, code = struct.unpack(">II", payload[:8])
            self.events.append(f"GOAWAY {code_name(code)} last={last & 0x7FFFFFFF}" + (f" {payload[8:60]!r}" if len(payload) > 8 else ""))
            return ("goaway", code_name(code))
        if kind == RST_STREAM and len(payload) == 4:
            code = struct.unpack(">I", payload)[0]
            self.events.append(f"RST_STREAM {code_name(code)} stream={frame_stream}")
            return ("rst_stream", code_name(code))
        if kind == PING and flags & ACK:
            self.events.append("PING ACK")
            return ("ignored", None) if payload == PROBE_PING else None
        if kind == PING:
            self.send(ping(payload, ACK))
            return None
        if kind == SETTINGS and not flags & ACK:
            self.send(frame(SETTINGS, ACK, 0))
            return None
        if kind == HEADERS:
            status = self.status(flags, payload)
            self.events.append(f"HEADERS :status={status} stream={frame_stream}")
            if status is not None and (stream is None or frame_stream == stream):
                return ("response", status)
            return None
        if kind in (DATA, WINDOW_UPDATE, SETTINGS):
            return None
        self.events.append(f"frame type {kind} flags {flags} stream {frame_stream}")
        return None

    def status(self, flags, payload):
        if flags & PADDED:
            payload = payload[1:len(payload) - payload[0]]
        if flags & PRIORITY_FLAG:
            payload = payload[5:]
        try:
            fields = self.decoder.decode(payload)
        except Exception as error:  # noqa: BLE001 — a header block we cannot read is worth a note, not a crash
            self.events.append(f"unreadable header block: {error}")
            return None
        for name, value in fields:
            if (name.decode() if isinstance(name, bytes) else name) == ":status":
                return int(value)
        return None

    def close(self):
        try:
            self.socket.close()
        except OSError:
            pass


# MARK: Expectations


def connection_error(*codes):
    """RFC 9113 §5.4.1: GOAWAY with one of the codes, or (SHOULD send GOAWAY) a plain close."""
    return {"kind": "connection error", "codes": list(codes), "accept": [("goaway", code) for code in codes] + [("closed", None)]}


def stream_error(*codes):
    """RFC 9113 §5.4.2: RST_STREAM with one of the codes; §5.4 lets any stream error be a
    connection error: GOAWAY with the code, or a close."""
    return {
        "kind": "stream error",
        "codes": list(codes),
        "accept": [("rst_stream", code) for code in codes] + [("goaway", code) for code in codes] + [("closed", None)],
    }


def either(*expectations):
    accept = []
    for expectation in expectations:
        accept.extend(expectation["accept"])
    return {"kind": " or ".join(e["kind"] for e in expectations), "codes": sorted({c for e in expectations for c in e["codes"]}), "accept": accept}


IGNORED = {"kind": "ignored (processing goes on)", "codes": [], "accept": [("ignored", None)]}


def meets(expectation, outcome):
    kind, detail = outcome
    for accepted_kind, accepted_detail in expectation["accept"]:
        if accepted_kind == kind and (accepted_detail is None or accepted_detail == detail or accepted_kind == "response" and accepted_detail == "*"):
            return True
    return False


# MARK: Cases

CASES = []


def case(name, group, rfc, expected):
    def register(function):
        CASES.append({"name": name, "group": group, "rfc": rfc, "expected": expected, "run": function})
        return function

    return register


def opened(probe, client_settings=None):
    connection = probe.connect()
    connection.handshake(client_settings)
    return connection


# Connection preface and SETTINGS


@case("bad-preface", "preface-settings", "RFC 9113 §3.4: an invalid preface is a connection error PROTOCOL_ERROR",
      {"kind": "connection error (or HTTP/1.1's 400: a preface this wrong is no HTTP/2)", "codes": ["PROTOCOL_ERROR"],
       "accept": [("goaway", "PROTOCOL_ERROR"), ("closed", None), ("http1-error", None)]})
def bad_preface(probe):
    connection = probe.connect()
    connection.send(b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n" + settings())
    # The server may take this for HTTP/1.1: read raw bytes and tell.
    connection.socket.settimeout(probe.timeout)
    received = b""
    deadline = time.monotonic() + probe.timeout
    while time.monotonic() < deadline:
        try:
            chunk = connection.socket.recv(65536)
        except socket.timeout:
            break
        except OSError:
            chunk = b""
        if not chunk:
            connection.closed = True
            break
        received += chunk
    if received.startswith(b"HTTP/1.1 4") or received.startswith(b"HTTP/1.1 5"):
        connection.events.append(received.split(b"\r\n", 1)[0].decode("latin-1"))
        return ("http1-error", None) if connection.closed else ("timeout", None), connection
    if len(received) >= 9:
        connection.buffer = received
        got = connection.next_frame(time.monotonic())
        while got is not None:
            event = connection.record(got, None)
            if event and event[0] == "goaway":
                return event, connection
            got = connection.next_frame(time.monotonic())
    return ("closed", None) if connection.closed else ("timeout", None), connection


@case("frame-before-settings", "preface-settings", "RFC 9113 §3.4: the preface's first frame must be SETTINGS", connection_error("PROTOCOL_ERROR"))
def frame_before_settings(probe):
    connection = probe.connect()
    connection.send(PREFACE + headers(1, request_fields(probe.path)))
    return connection.react(send_ping=False), connection


@case("settings-bad-length", "preface-settings", "RFC 9113 §6.5: a SETTINGS length not a multiple of 6 is a connection error FRAME_SIZE_ERROR",
      connection_error("FRAME_SIZE_ERROR"))
def settings_bad_length(probe):
    connection = opened(probe)
    connection.send(frame(SETTINGS, 0, 0, b"\x00\x03\x00\x00\x00"))
    return connection.react(), connection


@case("settings-on-stream", "preface-settings", "RFC 9113 §6.5: SETTINGS on a stream other than 0 is a connection error PROTOCOL_ERROR",
      connection_error("PROTOCOL_ERROR"))
def settings_on_stream(probe):
    connection = opened(probe)
    connection.send(frame(SETTINGS, 0, 1, struct.pack(">HI", 3, 100)))
    return connection.react(), connection


@case("settings-ack-with-payload", "preface-settings", "RFC 9113 §6.5: a SETTINGS ACK with a payload is a connection error FRAME_SIZE_ERROR",
      connection_error("FRAME_SIZE_ERROR"))
def settings_ack_with_payload(probe):
    connection = opened(probe)
    connection.send(frame(SETTINGS, ACK, 0, struct.pack(">HI", 3, 100)))
    return connection.react(), connection


@case("settings-enable-push-2", "preface-settings", "RFC 9113 §6.5.2: SETTINGS_ENABLE_PUSH other than 0 or 1 is a connection error PROTOCOL_ERROR",
      connection_error("PROTOCOL_ERROR"))
def settings_enable_push(probe):
    connection = opened(probe)
    connection.send(settings((0x2, 2)))
    return connection.react(), connection


@case("settings-initial-window-too-big", "preface-settings",
      "RFC 9113 §6.5.2: SETTINGS_INITIAL_WINDOW_SIZE over 2^31-1 is a connection error FLOW_CONTROL_ERROR", connection_error("FLOW_CONTROL_ERROR"))
def settings_window_too_big(probe):
    connection = opened(probe)
    connection.send(settings((0x4, 1 << 31)))
    return connection.react(), connection


@case("settings-max-frame-size-too-small", "preface-settings",
      "RFC 9113 §6.5.2: SETTINGS_MAX_FRAME_SIZE under 16384 is a connection error PROTOCOL_ERROR", connection_error("PROTOCOL_ERROR"))
def settings_frame_size_small(probe):
    connection = opened(probe)
    connection.send(settings((0x5, 16383)))
    return connection.react(), connection


@case("settings-max-frame-size-too-big", "preface-settings",
      "RFC 9113 §6.5.2: SETTINGS_MAX_FRAME_SIZE over 2^24-1 is a connection error PROTOCOL_ERROR", connection_error("PROTOCOL_ERROR"))
def settings_frame_size_big(probe):
    connection = opened(probe)
    connection.send(settings((0x5, 1 << 24)))
    return connection.react(), connection


@case("settings-unknown-identifier", "preface-settings", "RFC 9113 §6.5.2: an unknown setting must be ignored", IGNORED)
def settings_unknown(probe):
    connection = opened(probe)
    connection.send(settings((0x7A7A, 12345)))
    return connection.react(), connection


# Frames where they must not be, or of the wrong size


@case("ping-bad-length", "frames", "RFC 9113 §6.7: a PING whose length is not 8 is a connection error FRAME_SIZE_ERROR", connection_error("FRAME_SIZE_ERROR"))
def ping_bad_length(probe):
    connection = opened(probe)
    connection.send(frame(PING, 0, 0, b"1234567"))
    return connection.react(send_ping=False), connection


@case("ping-on-stream", "frames", "RFC 9113 §6.7: PING on a stream other than 0 is a connection error PROTOCOL_ERROR", connection_error("PROTOCOL_ERROR"))
def ping_on_stream(probe):
    connection = opened(probe)
    connection.send(frame(PING, 0, 1, b"12345678"))
    return connection.react(send_ping=False), connection


@case("goaway-on-stream", "frames", "RFC 9113 §6.8: GOAWAY on a stream other than 0 is a connection error PROTOCOL_ERROR", connection_error("PROTOCOL_ERROR"))
def goaway_on_stream(probe):
    connection = opened(probe)
    connection.send(frame(GOAWAY, 0, 1, struct.pack(">II", 0, 0)))
    return connection.react(), connection


@case("data-on-stream-0", "frames", "RFC 9113 §6.1: DATA on stream 0 is a connection error PROTOCOL_ERROR", connection_error("PROTOCOL_ERROR"))
def data_on_zero(probe):
    connection = opened(probe)
    connection.send(frame(DATA, END_STREAM, 0, b"hello"))
    return connection.react(), connection


@case("headers-on-stream-0", "frames", "RFC 9113 §6.2: HEADERS on stream 0 is a connection error PROTOCOL_ERROR", connection_error("PROTOCOL_ERROR"))
def headers_on_zero(probe):
    connection = opened(probe)
    connection.send(headers(0, request_fields(probe.path)))
    return connection.react(), connection


@case("rst-stream-on-stream-0", "frames", "RFC 9113 §6.4: RST_STREAM on stream 0 is a connection error PROTOCOL_ERROR", connection_error("PROTOCOL_ERROR"))
def rst_on_zero(probe):
    connection = opened(probe)
    connection.send(rst_stream(0, 8))
    return connection.react(), connection


@case("rst-stream-bad-length", "frames", "RFC 9113 §6.4: an RST_STREAM whose length is not 4 is a connection error FRAME_SIZE_ERROR",
      connection_error("FRAME_SIZE_ERROR"))
def rst_bad_length(probe):
    connection = opened(probe)
    connection.send(headers(1, request_fields(probe.path), end_stream=False) + frame(RST_STREAM, 0, 1, b"\x00\x00\x00\x08\x00"))
    return connection.react(), connection


@case("priority-on-stream-0", "frames", "RFC 9113 §6.3: PRIORITY on stream 0 is a connection error PROTOCOL_ERROR", connection_error("PROTOCOL_ERROR"))
def priority_on_zero(probe):
    connection = opened(probe)
    connection.send(frame(PRIORITY, 0, 0, struct.pack(">IB", 1, 16)))
    return connection.react(), connection


@case("priority-bad-length", "frames", "RFC 9113 §6.3: a PRIORITY whose length is not 5 is a stream error FRAME_SIZE_ERROR", stream_error("FRAME_SIZE_ERROR"))
def priority_bad_length(probe):
    connection = opened(probe)
    connection.send(frame(PRIORITY, 0, 1, struct.pack(">IB", 0, 16) + b"\x00"))
    return connection.react(), connection


@case("priority-depends-on-itself", "frames", "RFC 9113 §5.3.1: a stream that depends on itself is a stream error PROTOCOL_ERROR",
      stream_error("PROTOCOL_ERROR"))
def priority_self(probe):
    connection = opened(probe)
    connection.send(frame(PRIORITY, 0, 1, struct.pack(">IB", 1, 16)))
    return connection.react(), connection


@case("headers-priority-depends-on-itself", "frames", "RFC 9113 §5.3.1: HEADERS whose priority names its own stream is a stream error PROTOCOL_ERROR",
      stream_error("PROTOCOL_ERROR"))
def headers_priority_self(probe):
    connection = opened(probe)
    payload = struct.pack(">IB", 1, 16) + block(request_fields(probe.path))
    connection.send(frame(HEADERS, END_STREAM | END_HEADERS | PRIORITY_FLAG, 1, payload))
    return connection.react(stream=1), connection


@case("window-update-bad-length", "frames", "RFC 9113 §6.9: a WINDOW_UPDATE whose length is not 4 is a connection error FRAME_SIZE_ERROR",
      connection_error("FRAME_SIZE_ERROR"))
def window_update_bad_length(probe):
    connection = opened(probe)
    connection.send(frame(WINDOW_UPDATE, 0, 0, b"\x00\x00\x01"))
    return connection.react(), connection


@case("window-update-zero-on-connection", "frames", "RFC 9113 §6.9: a zero increment on the connection is a connection error PROTOCOL_ERROR",
      connection_error("PROTOCOL_ERROR"))
def window_update_zero(probe):
    connection = opened(probe)
    connection.send(window_update(0, 0))
    return connection.react(), connection


@case("window-update-zero-on-stream", "frames", "RFC 9113 §6.9: a zero increment on a stream is a stream error PROTOCOL_ERROR", stream_error("PROTOCOL_ERROR"))
def window_update_zero_stream(probe):
    connection = opened(probe)
    connection.send(headers(1, request_fields(probe.path), end_stream=False) + window_update(1, 0))
    return connection.react(stream=1), connection


@case("window-update-overflow-connection", "frames",
      "RFC 9113 §6.9.1: a connection window over 2^31-1 is a connection error FLOW_CONTROL_ERROR", connection_error("FLOW_CONTROL_ERROR"))
def window_overflow(probe):
    connection = opened(probe)
    connection.send(window_update(0, 0x7FFFFFFF) + window_update(0, 0x7FFFFFFF))
    return connection.react(), connection


@case("window-update-overflow-stream", "frames", "RFC 9113 §6.9.1: a stream window over 2^31-1 is a stream error FLOW_CONTROL_ERROR",
      stream_error("FLOW_CONTROL_ERROR"))
def window_overflow_stream(probe):
    connection = opened(probe)
    connection.send(headers(1, request_fields(probe.path), end_stream=False) + window_update(1, 0x7FFFFFFF) + window_update(1, 0x7FFFFFFF))
    return connection.react(stream=1), connection


@case("push-promise-from-client", "frames", "RFC 9113 §8.4: a client cannot push; PUSH_PROMISE from it is a connection error PROTOCOL_ERROR",
      connection_error("PROTOCOL_ERROR"))
def push_promise(probe):
    connection = opened(probe)
    connection.send(headers(1, request_fields(probe.path), end_stream=False)
                    + frame(PUSH_PROMISE, END_HEADERS, 1, struct.pack(">I", 2) + block(request_fields(probe.path))))
    return connection.react(), connection


@case("unknown-frame-type", "frames", "RFC 9113 §4.1/§5.5: a frame of an unknown type must be ignored", IGNORED)
def unknown_frame(probe):
    connection = opened(probe)
    connection.send(frame(0xEE, 0xFF, 0, b"whatever this is") + frame(0xEF, 0, 1, b"on a stream too"))
    return connection.react(), connection


@case("frame-over-max-frame-size", "frames", "RFC 9113 §4.2: a frame over SETTINGS_MAX_FRAME_SIZE is a FRAME_SIZE_ERROR (a connection error for a field block)",
      either(connection_error("FRAME_SIZE_ERROR"), stream_error("FRAME_SIZE_ERROR")))
def frame_too_large(probe):
    connection = opened(probe)
    size = connection.server_settings.get(0x5, 16384) + 1
    connection.send(headers(1, request_fields(probe.path, method="POST"), end_stream=False) + frame(DATA, END_STREAM, 1, b"x" * size))
    return connection.react(), connection


@case("data-pad-length-too-long", "frames", "RFC 9113 §6.1: padding as long as the payload or longer is a connection error PROTOCOL_ERROR",
      connection_error("PROTOCOL_ERROR"))
def data_padding(probe):
    connection = opened(probe)
    connection.send(headers(1, request_fields(probe.path, method="POST"), end_stream=False) + frame(DATA, END_STREAM | PADDED, 1, b"\x10abc"))
    return connection.react(), connection


@case("headers-pad-length-too-long", "frames", "RFC 9113 §6.2: padding as long as the payload or longer is a connection error PROTOCOL_ERROR",
      connection_error("PROTOCOL_ERROR"))
def headers_padding(probe):
    connection = opened(probe)
    payload = block(request_fields(probe.path))
    connection.send(frame(HEADERS, END_STREAM | END_HEADERS | PADDED, 1, bytes([len(payload) + 1]) + payload))
    return connection.react(), connection


# Stream identifiers and states


@case("even-stream-id", "streams", "RFC 9113 §5.1.1: a client stream with an even identifier is a connection error PROTOCOL_ERROR",
      connection_error("PROTOCOL_ERROR"))
def even_stream(probe):
    connection = opened(probe)
    connection.send(headers(2, request_fields(probe.path)))
    return connection.react(), connection


@case("stream-id-goes-backwards", "streams", "RFC 9113 §5.1.1: a stream identifier lower than one used before is a connection error PROTOCOL_ERROR",
      connection_error("PROTOCOL_ERROR"))
def backwards(probe):
    connection = opened(probe)
    connection.send(headers(5, request_fields(probe.path), end_stream=False) + headers(3, request_fields(probe.path)))
    return connection.react(), connection


@case("data-on-idle-stream", "streams", "RFC 9113 §5.1: DATA on an idle stream is a connection error PROTOCOL_ERROR", connection_error("PROTOCOL_ERROR"))
def data_idle(probe):
    connection = opened(probe)
    connection.send(frame(DATA, END_STREAM, 1, b"hello"))
    return connection.react(), connection


@case("rst-stream-on-idle-stream", "streams", "RFC 9113 §6.4: RST_STREAM on an idle stream is a connection error PROTOCOL_ERROR",
      connection_error("PROTOCOL_ERROR"))
def rst_idle(probe):
    connection = opened(probe)
    connection.send(rst_stream(1, 8))
    return connection.react(), connection


@case("window-update-on-idle-stream", "streams", "RFC 9113 §5.1: WINDOW_UPDATE on an idle stream is a connection error PROTOCOL_ERROR",
      connection_error("PROTOCOL_ERROR"))
def window_idle(probe):
    connection = opened(probe)
    connection.send(window_update(1, 100))
    return connection.react(), connection


@case("data-on-half-closed-stream", "streams",
      "RFC 9113 §5.1: DATA on a stream the client half-closed (END_STREAM sent) is a stream error STREAM_CLOSED",
      stream_error("STREAM_CLOSED"))
def data_half_closed(probe):
    connection = opened(probe)
    connection.send(headers(1, request_fields(probe.path)) + frame(DATA, 0, 1, b"late"))
    # The request was complete before the DATA: a response to it may come first, and is no verdict.
    return connection.react(stream=0), connection


@case("data-on-closed-stream", "streams", "RFC 9113 §5.1: DATA on a closed stream is a stream error (or connection error) STREAM_CLOSED",
      stream_error("STREAM_CLOSED"))
def data_closed(probe):
    connection = opened(probe)
    connection.send(headers(1, request_fields(probe.path)))
    answered = connection.react(stream=1, send_ping=False)
    if answered[0] != "response":
        return answered, connection
    # The response's DATA ends the stream; let it arrive, then write on the closed stream.
    connection.react(send_ping=True)
    connection.events.append("-- the stream is closed; DATA on it:")
    connection.send(frame(DATA, 0, 1, b"late"))
    return connection.react(), connection


@case("headers-on-closed-stream", "streams", "RFC 9113 §5.1: HEADERS on a closed stream is a connection error STREAM_CLOSED (or PROTOCOL_ERROR: §5.1.1, an identifier used before)",
      either(connection_error("STREAM_CLOSED", "PROTOCOL_ERROR"), stream_error("STREAM_CLOSED")))
def headers_closed(probe):
    connection = opened(probe)
    connection.send(headers(1, request_fields(probe.path)))
    answered = connection.react(stream=1, send_ping=False)
    if answered[0] != "response":
        return answered, connection
    connection.react(send_ping=True)
    connection.events.append("-- the stream is closed; HEADERS on it:")
    connection.send(headers(1, request_fields(probe.path)))
    return connection.react(), connection


@case("too-many-concurrent-streams", "streams",
      "RFC 9113 §5.1.2: a stream beyond SETTINGS_MAX_CONCURRENT_STREAMS is a stream error PROTOCOL_ERROR or REFUSED_STREAM",
      stream_error("REFUSED_STREAM", "PROTOCOL_ERROR"))
def too_many_streams(probe):
    connection = opened(probe)
    limit = connection.server_settings.get(0x3)
    if limit is None or limit > 1000:
        connection.events.append(f"SETTINGS_MAX_CONCURRENT_STREAMS is {limit}: opening 1001 streams")
        limit = 1000
    connection.events.append(f"opening {limit + 1} streams, none ended (the server allows {limit})")
    connection.send(b"".join(headers(1 + 2 * index, request_fields(probe.path, method="POST"), end_stream=False) for index in range(limit + 1)))
    return connection.react(), connection


# CONTINUATION


@case("continuation-without-headers", "continuation", "RFC 9113 §6.10: CONTINUATION not after HEADERS is a connection error PROTOCOL_ERROR",
      connection_error("PROTOCOL_ERROR"))
def continuation_alone(probe):
    connection = opened(probe)
    connection.send(frame(CONTINUATION, END_HEADERS, 1, block(request_fields(probe.path))))
    return connection.react(), connection


@case("continuation-after-complete-headers", "continuation",
      "RFC 9113 §6.10: CONTINUATION after HEADERS that had END_HEADERS is a connection error PROTOCOL_ERROR", connection_error("PROTOCOL_ERROR"))
def continuation_after_end(probe):
    connection = opened(probe)
    connection.send(headers(1, request_fields(probe.path), end_stream=False) + frame(CONTINUATION, END_HEADERS, 1, literal("x-more", "1")))
    return connection.react(), connection


@case("frame-interleaved-in-header-block", "continuation",
      "RFC 9113 §6.10: any frame other than CONTINUATION inside a header block is a connection error PROTOCOL_ERROR", connection_error("PROTOCOL_ERROR"))
def interleaved(probe):
    connection = opened(probe)
    connection.send(headers(1, request_fields(probe.path), end_headers=False))
    return connection.react(), connection  # our PING is the interleaved frame


@case("continuation-on-other-stream", "continuation",
      "RFC 9113 §6.10: a CONTINUATION on another stream inside a header block is a connection error PROTOCOL_ERROR", connection_error("PROTOCOL_ERROR"))
def continuation_other(probe):
    connection = opened(probe)
    connection.send(headers(1, request_fields(probe.path), end_headers=False) + frame(CONTINUATION, END_HEADERS, 3, literal("x-more", "1")))
    return connection.react(), connection


# HPACK and the fields of a request


@case("hpack-bad-index", "hpack", "RFC 7541 §2.3.3: an index beyond both tables is a decoding error: connection error COMPRESSION_ERROR (RFC 9113 §4.3)",
      connection_error("COMPRESSION_ERROR"))
def hpack_bad_index(probe):
    connection = opened(probe)
    connection.send(headers(1, block(request_fields(probe.path)) + hpack_int(200, 7, 0x80)))
    return connection.react(), connection


@case("hpack-table-size-update-too-big", "hpack",
      "RFC 7541 §6.3: a dynamic table size update over SETTINGS_HEADER_TABLE_SIZE is a decoding error: COMPRESSION_ERROR",
      connection_error("COMPRESSION_ERROR"))
def hpack_table_update(probe):
    connection = opened(probe)
    connection.send(headers(1, hpack_int(1 << 20, 5, 0x20) + block(request_fields(probe.path))))
    return connection.react(), connection


@case("hpack-table-size-update-after-field", "hpack",
      "RFC 7541 §4.2: a dynamic table size update after the first field of a block is a decoding error: COMPRESSION_ERROR",
      connection_error("COMPRESSION_ERROR"))
def hpack_table_update_late(probe):
    connection = opened(probe)
    connection.send(headers(1, block(request_fields(probe.path)) + hpack_int(0, 5, 0x20)))
    return connection.react(), connection


@case("hpack-bad-huffman", "hpack", "RFC 7541 §5.2: Huffman padding of 8 bits or more, or not all ones, is a decoding error: COMPRESSION_ERROR",
      connection_error("COMPRESSION_ERROR"))
def hpack_bad_huffman(probe):
    connection = opened(probe)
    # A literal field whose name is "Huffman coded": four bytes of zeros (padding that is not the EOS prefix).
    connection.send(headers(1, block(request_fields(probe.path)) + b"\x00\x84\x00\x00\x00\x00\x01x"))
    return connection.react(), connection


@case("hpack-truncated-block", "hpack", "RFC 7541 §2: a header block that ends inside a field is a decoding error: COMPRESSION_ERROR",
      connection_error("COMPRESSION_ERROR"))
def hpack_truncated(probe):
    connection = opened(probe)
    connection.send(headers(1, block(request_fields(probe.path)) + b"\x00\x0ax-cut"))
    return connection.react(), connection


def malformed(name, rfc, fields_of, extra_frames=None):
    """A request RFC 9113 §8.1.1 calls malformed: a stream error PROTOCOL_ERROR."""

    @case(name, "fields", rfc + "; a malformed request is a stream error PROTOCOL_ERROR (§8.1.1)", stream_error("PROTOCOL_ERROR"))
    def run(probe):
        connection = opened(probe)
        fields = fields_of(probe.path)
        if extra_frames is None:
            connection.send(headers(1, fields))
        else:
            connection.send(headers(1, fields, end_stream=False) + extra_frames)
        return connection.react(stream=1), connection


malformed("uppercase-field-name", "RFC 9113 §8.2.1: field names must be lowercase", lambda path: request_fields(path, extra=[("X-Upper", "1")]))
malformed("connection-field", "RFC 9113 §8.2.2: connection-specific fields (Connection) are forbidden", lambda path: request_fields(path, extra=[("connection", "keep-alive")]))
malformed("transfer-encoding-field", "RFC 9113 §8.2.2: Transfer-Encoding is connection-specific", lambda path: request_fields(path, extra=[("transfer-encoding", "chunked")]))
malformed("te-not-trailers", "RFC 9113 §8.2.2: TE may only be \"trailers\"", lambda path: request_fields(path, extra=[("te", "gzip")]))
malformed("field-value-with-newline", "RFC 9113 §8.2.1: a value with CR, LF or NUL is malformed", lambda path: request_fields(path, extra=[("x-evil", "a\r\nx-injected: 1")]))
malformed("missing-method", "RFC 9113 §8.3.1: :method is required", lambda path: [(":scheme", "http"), (":authority", "localhost"), (":path", path)])
malformed("missing-path", "RFC 9113 §8.3.1: :path is required", lambda path: [(":method", "GET"), (":scheme", "http"), (":authority", "localhost")])
malformed("empty-path", "RFC 9113 §8.3.1: :path must not be empty", lambda path: request_fields(""))
malformed("duplicate-path", "RFC 9113 §8.3.1: a pseudo-header appears once", lambda path: request_fields(path) + [(":path", path)])
malformed("unknown-pseudo-header", "RFC 9113 §8.3: an undefined pseudo-header is malformed", lambda path: request_fields(path, extra=[(":foo", "bar")]))
malformed("response-pseudo-header-in-request", "RFC 9113 §8.3: :status in a request is malformed", lambda path: request_fields(path, extra=[(":status", "200")]))
malformed("pseudo-header-after-regular", "RFC 9113 §8.3: pseudo-headers come before regular fields",
          lambda path: [(":method", "GET"), (":scheme", "http"), ("x-first", "1"), (":authority", "localhost"), (":path", path)])
malformed("content-length-mismatch", "RFC 9113 §8.1.1: DATA that does not add up to content-length is malformed",
          lambda path: request_fields(path, method="POST", extra=[("content-length", "10")]), frame(DATA, END_STREAM, 1, b"12345"))
malformed("pseudo-header-in-trailers", "RFC 9113 §8.1: trailers carry no pseudo-headers",
          lambda path: request_fields(path, method="POST"), frame(DATA, 0, 1, b"body") + headers(1, [(":path", "/trailer")]))


@case("malformed-request-beside-one-in-flight", "fields",
      "RFC 9113 §8.1.1 and §5.4: a malformed request is a stream error; the server may make it a connection error, but then SHOULD send "
      "GOAWAY (§5.4.1) so that the client knows what of the request in flight beside it was served: its response, or a GOAWAY",
      {"kind": "the malformed stream reset and the other answered, or a GOAWAY", "codes": ["PROTOCOL_ERROR"],
       "accept": [("stream-error-others-answered", None), ("goaway", "PROTOCOL_ERROR")]})
def malformed_beside_in_flight(probe):
    connection = opened(probe)
    connection.send(headers(1, request_fields(probe.slow_path)) + headers(3, request_fields(probe.path, extra=[("X-Upper", "1")])))
    deadline = time.monotonic() + probe.timeout
    reset = None
    while True:
        got = connection.next_frame(deadline)
        if got is None:
            if connection.closed:
                connection.events.append("closed")
                return ("in-flight-lost" if reset else "closed", None), connection
            return ("timeout", None), connection
        kind, flags, stream, _ = got
        event = connection.record(got, 1)
        if event and event[0] == "goaway":
            return event, connection
        if event and event[0] == "rst_stream" and stream == 3:
            reset = event
        elif event and event[0] == "rst_stream":
            return ("in-flight-reset", event[1]), connection
        if stream == 1 and kind in (HEADERS, DATA) and flags & END_STREAM:
            if reset == ("rst_stream", "PROTOCOL_ERROR"):
                return ("stream-error-others-answered", None), connection
            return ("in-flight-answered-without-reset", None), connection


# Floods: what a client can make a server hold or repeat


@case("rapid-reset", "floods", "CVE-2023-44487: thousands of streams opened and reset at once. No RFC reaction is required: the server must "
      "stay up and either go on serving or end the connection (GOAWAY, often ENHANCE_YOUR_CALM)",
      {"kind": "served, or the connection ended", "codes": [], "accept": [("response", "*"), ("goaway", None), ("closed", None)]})
def rapid_reset(probe):
    connection = opened(probe)
    pairs = 5000
    batch = b"".join(headers(1 + 2 * index, request_fields(probe.path), end_stream=False) + rst_stream(1 + 2 * index, 8) for index in range(pairs))
    connection.events.append(f"{pairs} HEADERS + RST_STREAM(CANCEL) pairs")
    connection.send(batch)
    last = 1 + 2 * pairs
    connection.send(headers(last, request_fields(probe.path)))
    return react_past_resets(connection, last), connection


def react_past_resets(connection, stream, ping_too=False):
    """Reads until the response on `stream` (or the ACK of a PING sent now, with `ping_too`), a
    GOAWAY or a close (RST_STREAMs on other streams are the server's answers to the flood, not its
    verdict)."""
    if ping_too:
        connection.send(ping())
    deadline = time.monotonic() + connection.timeout
    resets = 0
    while True:
        got = connection.next_frame(deadline)
        if got is None:
            connection.events.append(f"{resets} RST_STREAM on other streams")
            if connection.closed:
                connection.events.append("closed")
                return ("closed", None)
            return ("timeout", None)
        kind, _, frame_stream, _ = got
        if kind == RST_STREAM and frame_stream != stream:
            resets += 1
            continue
        if kind == HEADERS and frame_stream != stream:
            continue
        event = connection.record(got, stream)
        if event and event[0] in ("response", "goaway", "ignored") or event and event[0] == "rst_stream" and frame_stream == stream:
            connection.events.append(f"{resets} RST_STREAM on other streams")
            return event


@case("continuation-flood", "floods", "CVE-2024-27316: HEADERS then CONTINUATION frames without END_HEADERS, without end: the server must refuse "
      "the header block (any error, a close, or 431) before it has taken all of it (16 MiB here), not buffer it all",
      {"kind": "refused before the end", "codes": [], "accept": [("goaway", None), ("rst_stream", None), ("closed", None), ("response", 431)]})
def continuation_flood(probe):
    connection = opened(probe)
    connection.send(headers(1, request_fields(probe.path), end_headers=False))
    piece = literal("x-flood", "y" * 16000)
    sent = 0
    limit = 1024  # frames of 16 kB: 16 MiB
    outcome = None
    while sent < limit and outcome is None:
        # What the server sent meanwhile (its SETTINGS ACK, or its verdict) is read as it comes.
        while outcome is None and select.select([connection.socket], [], [], 0)[0]:
            got = connection.next_frame(time.monotonic() + 0.05)
            if got is None:
                if connection.closed:
                    outcome = ("closed", None)
                break
            event = connection.record(got, 1)
            if event and event[0] in ("goaway", "rst_stream", "response"):
                outcome = event
        if outcome is None:
            if not connection.send(frame(CONTINUATION, 0, 1, piece)):
                outcome = ("closed", None)
            else:
                sent += 1
    connection.events.append(f"{sent} CONTINUATION frames of {len(piece)} bytes sent")
    if outcome is not None:
        return outcome, connection
    outcome = connection.react(send_ping=False)
    if sent == limit and outcome[0] == "timeout":
        connection.events.append("the server took the whole header block without a word")
    return outcome, connection


@case("empty-continuation-flood", "floods", "Zero-length CONTINUATION frames without end (the CPU variant): the server must stay up, and "
      "either refuse them or answer once END_HEADERS comes",
      {"kind": "refused, or answered", "codes": [], "accept": [("goaway", None), ("rst_stream", None), ("closed", None), ("response", "*")]})
def empty_continuation_flood(probe):
    connection = opened(probe)
    connection.send(headers(1, request_fields(probe.path), end_headers=False))
    count = 20000
    connection.send(frame(CONTINUATION, 0, 1) * count + frame(CONTINUATION, END_HEADERS, 1))
    connection.events.append(f"{count} empty CONTINUATION frames, then END_HEADERS")
    return connection.react(stream=1, send_ping=False), connection


@case("hpack-bomb", "floods", "RFC 7541 §7.3 / RFC 9113 §10.5.1: one 4 kB entry in the dynamic table, referenced 16000 times (64 MB of fields "
      "from 16 kB): the server must refuse it past SETTINGS_MAX_HEADER_LIST_SIZE (431, a stream or connection error)",
      {"kind": "refused", "codes": [], "accept": [("goaway", None), ("rst_stream", None), ("closed", None), ("response", 431)]})
def hpack_bomb(probe):
    connection = opened(probe)
    big = literal("x-bomb", "z" * 4000, indexed=True)  # 4038 octets in the table (32 + name + value)
    references = bytes([0x80 | 62]) * 16000  # the newest dynamic entry, index 62
    whole = block(request_fields(probe.path)) + big + references
    size = 16384
    pieces = [whole[index:index + size] for index in range(0, len(whole), size)]
    data = frame(HEADERS, END_STREAM | (END_HEADERS if len(pieces) == 1 else 0), 1, pieces[0])
    for index, piece in enumerate(pieces[1:], start=1):
        data += frame(CONTINUATION, END_HEADERS if index == len(pieces) - 1 else 0, 1, piece)
    connection.send(data)
    return connection.react(stream=1, send_ping=False), connection


@case("malformed-request-flood", "floods", "1000 malformed requests, one stream each: each is a stream error, and the server must stay up; "
      "it may end the connection past a limit of its own (ENHANCE_YOUR_CALM)",
      {"kind": "answered, or the connection ended", "codes": [], "accept": [("ignored", None), ("goaway", None), ("closed", None)]})
def malformed_flood(probe):
    connection = opened(probe)
    count = 1000
    connection.send(b"".join(headers(1 + 2 * index, request_fields(probe.path, extra=[("X-Upper", "1")])) for index in range(count)))
    connection.events.append(f"{count} malformed requests sent")
    outcome = react_past_resets(connection, 0, ping_too=True)
    return outcome, connection


@case("ping-flood", "floods", "100000 PINGs without reading the ACKs: the server must stay up; it may end the connection (ENHANCE_YOUR_CALM) "
      "or answer them all",
      {"kind": "answered, or the connection ended", "codes": [], "accept": [("ignored", None), ("goaway", None), ("closed", None)]})
def ping_flood(probe):
    connection = opened(probe)
    count = 100000
    connection.socket.settimeout(probe.timeout)
    connection.send(ping(b"flooding", 0) * count)
    connection.events.append(f"{count} PINGs sent")
    return connection.react(), connection


@case("settings-flood", "floods", "20000 SETTINGS frames without reading the ACKs: the server must stay up; it may end the connection or answer",
      {"kind": "answered, or the connection ended", "codes": [], "accept": [("ignored", None), ("goaway", None), ("closed", None)]})
def settings_flood(probe):
    connection = opened(probe)
    count = 20000
    connection.send(settings((0x3, 100)) * count)
    connection.events.append(f"{count} SETTINGS sent")
    return connection.react(), connection


# Slow and half-open clients: the server must not be held forever


SLOW_ENDED = {"kind": "the server ends it (a 408, RST_STREAM, GOAWAY or close)", "codes": [],
              "accept": [("goaway", None), ("rst_stream", None), ("closed", None), ("response", 408)]}


@case("silent-after-preface", "slow", "A client that sends its preface and SETTINGS, then nothing: the idle connection is closed", SLOW_ENDED)
def silent(probe):
    connection = opened(probe)
    return connection.react(send_ping=False, wait=probe.stall_wait), connection


@case("header-block-never-ends", "slow", "HEADERS without END_HEADERS, then nothing: the connection is not held forever", SLOW_ENDED)
def header_block_open(probe):
    connection = opened(probe)
    connection.send(headers(1, request_fields(probe.path), end_headers=False))
    return connection.react(send_ping=False, wait=probe.stall_wait), connection


@case("stream-never-ends", "slow", "HEADERS without END_STREAM, then nothing: the open stream is not held forever", SLOW_ENDED)
def stream_open(probe):
    connection = opened(probe)
    connection.send(headers(1, request_fields(probe.path, method="POST", extra=[("content-length", "10")]), end_stream=False))
    return connection.react(send_ping=False, wait=probe.stall_wait), connection


@case("body-stops-halfway", "slow", "Half of a declared body, then nothing: the open stream is not held forever", SLOW_ENDED)
def body_stops(probe):
    connection = opened(probe)
    connection.send(headers(1, request_fields(probe.path, method="POST", extra=[("content-length", "10")]), end_stream=False) + frame(DATA, 0, 1, b"12345"))
    return connection.react(send_ping=False, wait=probe.stall_wait), connection


@case("frame-cut-short", "slow", "A frame header announcing 100 bytes and 10 of them, then nothing: the connection is not held forever", SLOW_ENDED)
def frame_cut(probe):
    connection = opened(probe)
    connection.send(struct.pack(">I", 100)[1:] + bytes([HEADERS, END_HEADERS]) + struct.pack(">I", 1) + b"\x00" * 10)
    return connection.react(send_ping=False, wait=probe.stall_wait), connection


# MARK: Running


class Probe:
    def __init__(self, arguments):
        self.host = arguments.host
        self.port = arguments.port
        self.path = arguments.path
        self.slow_path = arguments.slow_path or arguments.path
        self.timeout = arguments.read_timeout
        self.stall_wait = arguments.stall_wait

    def connect(self):
        return Connection(self.host, self.port, self.timeout)

    def alive_h2(self):
        """A normal HTTP/2 GET on a fresh connection: its status, or what went wrong."""
        try:
            connection = self.connect()
        except OSError as error:
            return f"no HTTP/2 connection: {error}"
        try:
            # The request right behind the preface, as clients do: nothing waits in between.
            connection.send(PREFACE + settings() + headers(1, request_fields(self.path)))
            deadline = time.monotonic() + self.timeout
            status = None
            while True:
                got = connection.next_frame(deadline)
                if got is None:
                    return f"HTTP/2: {'closed' if connection.closed else 'timed out'} (status {status})"
                kind, flags, stream, payload = got
                connection.record(got, 1)
                if kind == HEADERS and stream == 1:
                    status = connection.status(flags, payload)
                if kind == GOAWAY:
                    return f"HTTP/2: GOAWAY {connection.events[-1]}"
                if kind == RST_STREAM and stream == 1:
                    return f"HTTP/2: {connection.events[-1]}"
                if stream == 1 and kind in (HEADERS, DATA) and flags & END_STREAM:
                    return status
        finally:
            connection.close()

    def alive_h1(self):
        """A normal HTTP/1.1 GET on a fresh connection: its status, or what went wrong."""
        try:
            with socket.create_connection((self.host, self.port), timeout=self.timeout) as sock:
                sock.sendall(f"GET {self.path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
                received = b""
                deadline = time.monotonic() + self.timeout
                while time.monotonic() < deadline:
                    sock.settimeout(max(0.01, deadline - time.monotonic()))
                    chunk = sock.recv(65536)
                    if not chunk:
                        break
                    received += chunk
                    if b"\r\n\r\n" in received:
                        break
                line = received.split(b"\r\n", 1)[0].decode("latin-1")
                if line.startswith("HTTP/1.1 ") and line[9:12].isdigit():
                    return int(line[9:12])
                return f"HTTP/1.1: no status line ({line!r})"
        except OSError as error:
            return f"HTTP/1.1: {type(error).__name__}: {error}"


def run(arguments):
    report = toolenv.Report(TOOL, "run")
    probe = Probe(arguments)
    chosen = [c for c in CASES if (not arguments.group or c["group"] in arguments.group) and (not arguments.case or c["name"] in arguments.case)]
    if not chosen:
        raise toolenv.ToolError("no case matches --group/--case (see `list`)")
    before = (probe.alive_h2(), probe.alive_h1())
    if not all(isinstance(status, int) for status in before):
        raise toolenv.ToolError(f"the server does not answer before any case: {before}")
    results = []
    for entry in chosen:
        report.section = entry["name"]
        connection = None
        started = time.monotonic()
        try:
            outcome, connection = entry["run"](probe)
        except toolenv.ToolError as error:
            outcome = ("timeout", None)
            connection = None
            note = str(error)
        except OSError as error:
            outcome = ("closed", None) if isinstance(error, (ConnectionResetError, BrokenPipeError)) else ("error", f"{type(error).__name__}: {error}")
            note = f"{type(error).__name__}: {error}"
        else:
            note = None
        events = list(connection.events) if connection else []
        if connection:
            connection.close()
        seconds = round(time.monotonic() - started, 3)
        meets_rfc = meets(entry["expected"], outcome)
        alive = {"h2": probe.alive_h2(), "h1": probe.alive_h1()}
        is_alive = all(isinstance(status, int) for status in alive.values())
        stalled = outcome[0] == "timeout"
        result = {
            "name": entry["name"], "group": entry["group"], "rfc": entry["rfc"],
            "expected": {"kind": entry["expected"]["kind"], "codes": entry["expected"]["codes"]},
            "outcome": outcome[0] + (f" {outcome[1]}" if outcome[1] is not None else ""),
            "events": events[:40], "meets": meets_rfc, "stalled": stalled, "alive": alive,
            "passed": meets_rfc and is_alive and not stalled, "seconds": seconds,
        }
        if note:
            result["note"] = note
        results.append(result)
        toolenv.say(f"{'ok  ' if result['passed'] else 'FAIL'} {entry['group']}/{entry['name']}: {result['outcome']} "
                    f"(expected {entry['expected']['kind']} {'/'.join(entry['expected']['codes'])}); after it: HTTP/2 {alive['h2']}, HTTP/1.1 {alive['h1']}")
        report.checks += 1
        if stalled:
            report.problem(f"the server stalled: no reaction within the read timeout; events {events[:10]}")
        elif not meets_rfc:
            report.problem(f"{result['outcome']} is not what {entry['rfc']} asks ({entry['expected']['kind']}); events {events[:10]}")
        if not is_alive:
            report.problem(f"the server no longer answers after this case: {alive}")
    report.section = ""
    report.extra["cases"] = results
    return report.finish()


def list_cases(arguments):
    for entry in CASES:
        toolenv.say(f"{entry['group']}/{entry['name']}: {entry['rfc']}")
    report = toolenv.Report(TOOL, "list")
    report.extra["cases"] = [{"name": c["name"], "group": c["group"], "rfc": c["rfc"]} for c in CASES]
    return report.finish()


def install(arguments):
    return toolenv.Report(TOOL, "install").finish()


def parser():
    top = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = top.add_subparsers(dest="command", required=True)
    probe = commands.add_parser("run", help="run the cases against a server speaking h2c on HOST:PORT")
    probe.add_argument("--host", default="127.0.0.1")
    probe.add_argument("--port", type=int, required=True)
    probe.add_argument("--path", default="/", help="what the liveness checks and the cases request (any status is an answer)")
    probe.add_argument("--slow-path", help="a path the server answers after a pause (a request in flight beside a malformed one); --path by default")
    probe.add_argument("--group", action="append", help="repeatable: only these groups (see `list`)")
    probe.add_argument("--case", action="append", help="repeatable: only these cases")
    probe.add_argument("--read-timeout", type=float, default=30.0, help="seconds a read may wait: longer is the server stalling (a hang guard)")
    probe.add_argument("--stall-wait", type=float, default=120.0, help="seconds the slow group waits for the server to end a half-open client")
    probe.set_defaults(run=run)
    commands.add_parser("list", help="list the cases").set_defaults(run=list_cases)
    commands.add_parser("install", help="install the environment and stop").set_defaults(run=install)
    return top


if __name__ == "__main__":
    sys.exit(toolenv.main(http2_clients.ENVIRONMENT, parser, __file__))
