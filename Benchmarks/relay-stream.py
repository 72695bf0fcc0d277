#!/usr/bin/env python3
"""Server-sent events relayed and recorded by `airlock record`, side by side for two builds.

Starts Tests/MockServerTests/Upstream/sse_upstream.py (a stream of N events, one chunk each, sent as
fast as the connection takes them: `/events?count=N&pause=0`), then, for each round and each
`airlock` binary in turn (alternating, so that a noisy neighbour hits both alike), an
`airlock record --target <upstream>` in front of it, and reads the stream through it with a raw
socket: events per second from the request to the stream's end, the recording included (the
cassette is written when the recorder stops, outside the timing). Prints each build's median and
the ratio after/before.

    Benchmarks/relay-stream.py BEFORE_AIRLOCK AFTER_AIRLOCK [--events N] [--rounds R] [--streams S]
"""
import argparse
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
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
    got = received.count(b"\ndata: ")
    if got != events:
        raise SystemExit(f"got {got} of {events} events")
    return elapsed


def round_of(airlock, upstream, events, streams):
    with tempfile.TemporaryDirectory() as folder:
        cassette = os.path.join(folder, "stream.har")
        child, port = start([airlock, "record", "--target", f"http://127.0.0.1:{upstream}", "--cassette", cassette, "--port", "0", "--quiet"],
                            r"://(?:127\.0\.0\.1|localhost):(\d+)")
        try:
            read_stream(port, 100)  # warm-up: connections, first allocations
            rates = [events / read_stream(port, events) for _ in range(streams)]
        finally:
            child.send_signal(signal.SIGINT)
            child.wait(timeout=60)
        return statistics.median(rates)


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
    try:
        for number in range(options.rounds):
            order = [("before", options.before), ("after", options.after)]
            if number % 2:
                order.reverse()
            for name, airlock in order:
                rate = round_of(airlock, upstream, options.events, options.streams)
                results[name].append(rate)
                print(f"round {number + 1} {name}: {rate:,.0f} events/s", flush=True)
    finally:
        upstream_child.terminate()
    before = statistics.median(results["before"])
    after = statistics.median(results["after"])
    print(f"median before: {before:,.0f} events/s; after: {after:,.0f} events/s; after/before: {after / before:.2f}x")


if __name__ == "__main__":
    main()
