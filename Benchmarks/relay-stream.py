#!/usr/bin/env python3
"""Server-sent events relayed and recorded by `airlock record`, side by side for two builds.

Starts Tests/MockServerTests/Upstream/sse_upstream.py (a stream of N events, one chunk each, sent as
fast as the connection takes them: `/events?count=N&pause=0`), then, for each round and each
`airlock` binary in turn (alternating, so that a noisy neighbour hits both alike), an
`airlock record --target <upstream>` in front of it, and reads the stream through it with a raw
socket: events per second from the request to the stream's end, and the CPU time the `airlock`
process spent per event (from /proc, so less sensitive than the wall clock to other work on a
shared machine), the recording included (the cassette is written when the recorder stops, outside
the timing). Prints each build's medians and the ratios after/before.

Then, the same way, a paced stream (1,000 events 2 ms apart, each carrying the monotonic time the
upstream sent it) through each build: the latency from the upstream's send to the client's read,
median and 99th percentile.

    Benchmarks/relay-stream.py BEFORE_AIRLOCK AFTER_AIRLOCK [--events N] [--rounds R] [--streams S]
"""
import argparse
import contextlib
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
UPSTREAM = os.path.join(HERE, "..", "Tests", "MockServerTests", "Upstream", "sse_upstream.py")


def start(arguments, pattern):
    child = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    while True:
        line = child.stdout.readline()
        if not line:
            raise SystemExit(f"{arguments[0]} ended before it was ready")
        found = re.findall(pattern, line)
        if found:
            return child, int(found[-1])


def read_stream(port, events):
    """Seconds from the request to the end of a stream of `events` events."""
    connection = socket.create_connection(("127.0.0.1", port))
    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    started = time.perf_counter()
    connection.sendall(f"GET /events?count={events}&pause=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
    received = bytearray()
    while True:
        data = connection.recv(1 << 20)
        if not data:
            break
        received += data
        if received.endswith(b"0\r\n\r\n"):
            break
    elapsed = time.perf_counter() - started
    connection.close()
    got = dechunked(received).count(b"\ndata: ")
    if got != events:
        raise SystemExit(f"got {got} of {events} events")
    return elapsed


def dechunked(response):
    """The body of a chunked response: the relay frames the pieces it read anew, so a chunk may
    end in the middle of an event."""
    _, _, rest = bytes(response).partition(b"\r\n\r\n")
    body = bytearray()
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        body += rest[:size]
        rest = rest[size + 2:]
    return body


def start_paced_upstream():
    """A stream of events, each carrying the monotonic time it was sent at (`data: <ns>`), one
    chunk each: `GET /paced?count=N&pause=S`. Returns its port."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)

    def serve(connection):
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        request = b""
        while b"\r\n\r\n" not in request:
            request += connection.recv(65536)
        query = dict(part.split("=") for part in request.split(b" ")[1].decode().partition("?")[2].split("&"))
        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
        for _ in range(int(query["count"])):
            time.sleep(float(query["pause"]))
            event = b"data: %d\n\n" % time.monotonic_ns()
            connection.sendall(b"%x\r\n" % len(event) + event + b"\r\n")
        connection.sendall(b"0\r\n\r\n")
        connection.close()

    def accept():
        while True:
            connection, _ = listener.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return listener.getsockname()[1]


def paced_latencies(port, events, pause):
    """Microseconds from each event's sending by the upstream to its arrival at the client."""
    connection = socket.create_connection(("127.0.0.1", port))
    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    connection.sendall(f"GET /paced?count={events}&pause={pause} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
    latencies = []
    pending = b""
    received = bytearray()
    while True:
        data = connection.recv(1 << 16)
        if not data:
            break
        now = time.monotonic_ns()
        received += data
        pending += data
        # Every complete `data: <ns>` line that arrived with this read.
        while True:
            start = pending.find(b"data: ")
            end = pending.find(b"\n", start)
            if start < 0 or end < 0:
                break
            latencies.append((now - int(pending[start + 6:end])) / 1000)
            pending = pending[end + 1:]
        if received.endswith(b"0\r\n\r\n"):
            break
    connection.close()
    if len(latencies) != events:
        raise SystemExit(f"got {len(latencies)} of {events} paced events")
    return latencies


def cpu_seconds(pid):
    """The CPU time (user and system) a process has used: less sensitive than the wall clock to
    other work on a shared machine."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def recording(airlock, upstream):
    """An `airlock record --target <upstream>` into a cassette of its own: yields its pid and port,
    and stops it (Ctrl-C) afterwards."""
    with tempfile.TemporaryDirectory() as folder:
        cassette = os.path.join(folder, "stream.har")
        child, port = start([airlock, "record", "--target", f"http://127.0.0.1:{upstream}", "--cassette", cassette, "--port", "0", "--quiet"],
                            r"://(?:127\.0\.0\.1|localhost):(\d+)")
        try:
            yield child.pid, port
        finally:
            child.send_signal(signal.SIGINT)
            child.wait(timeout=60)


def latency_round(airlock, upstream, events, pause):
    """The median and 99th percentile latency of one paced stream through `airlock record`."""
    with recording(airlock, upstream) as (_, port):
        paced_latencies(port, 10, 0)
        latencies = sorted(paced_latencies(port, events, pause))
    return statistics.median(latencies), latencies[int(len(latencies) * 0.99)]


def round_of(airlock, upstream, events, streams):
    """The median events per second of `streams` streams, and the CPU microseconds per event."""
    with recording(airlock, upstream) as (pid, port):
        read_stream(port, 100)  # warm-up: connections, first allocations
        cpu = cpu_seconds(pid)
        rates = [events / read_stream(port, events) for _ in range(streams)]
        cpu = cpu_seconds(pid) - cpu
    return statistics.median(rates), cpu / (events * streams) * 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--streams", type=int, default=3)
    options = parser.parse_args()
    upstream_child, upstream = start([sys.executable, UPSTREAM], r"port (\d+)")
    results = {"before": [], "after": []}
    costs = {"before": [], "after": []}
    try:
        for number in range(options.rounds):
            order = [("before", options.before), ("after", options.after)]
            if number % 2:
                order.reverse()
            for name, airlock in order:
                rate, cost = round_of(airlock, upstream, options.events, options.streams)
                results[name].append(rate)
                costs[name].append(cost)
                print(f"round {number + 1} {name}: {rate:,.0f} events/s, {cost:.1f} us of airlock CPU per event", flush=True)
    finally:
        upstream_child.terminate()
    paced = start_paced_upstream()
    latencies = {"before": [], "after": []}
    for number in range(options.rounds):
        order = [("before", options.before), ("after", options.after)]
        if number % 2:
            order.reverse()
        for name, airlock in order:
            median, p99 = latency_round(airlock, paced, 1000, 0.002)
            latencies[name].append((median, p99))
            print(f"round {number + 1} {name}: paced stream (1000 events, 2 ms apart) latency median {median:.0f} us, p99 {p99:.0f} us", flush=True)
    before = statistics.median(results["before"])
    after = statistics.median(results["after"])
    print(f"median before: {before:,.0f} events/s; after: {after:,.0f} events/s; after/before: {after / before:.2f}x")
    before_cost = statistics.median(costs["before"])
    after_cost = statistics.median(costs["after"])
    print(f"median airlock CPU per event before: {before_cost:.1f} us; after: {after_cost:.1f} us; after/before: {after_cost / before_cost:.2f}x")
    for index, label in [(0, "median"), (1, "p99")]:
        before_latency = statistics.median(value[index] for value in latencies["before"])
        after_latency = statistics.median(value[index] for value in latencies["after"])
        print(f"paced latency {label} (median of rounds) before: {before_latency:.0f} us; after: {after_latency:.0f} us; after/before: {after_latency / before_latency:.2f}x")


if __name__ == "__main__":
    main()
