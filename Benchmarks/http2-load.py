#!/usr/bin/env python3
"""`airlock serve` over HTTP/2 (h2c with prior knowledge) beside the HTTP/2 anchor, in one run,
rounds interleaved: h2load (Debian's nghttp2-client) sends the same GET of the same JSON body to
each, and the table gives requests per second and airlock's ratio to the anchor
(Benchmarks/NIOAnchorHTTP2: swift-nio-http2's standard pipeline, each stream through
`HTTP2FramePayloadToHTTP1ServerCodec`, as airlock maps streams). Both run on one thread
(`--threads 1`), as the HTTP/1.1 comparison's single-thread rows do.

    python3 Benchmarks/http2-load.py [--seconds 5] [--clients 8] [--streams 16] [--rounds 3] [--baseline AIRLOCK]

`--streams` is h2load's `-m`: requests in flight on each connection. Build first:
`swift build -c release --product airlock` and `swift build -c release --package-path
Benchmarks/NIOAnchorHTTP2` (Benchmarks/http2-load.sh does both and installs h2load).
Everything listens on 127.0.0.1.
"""
import argparse, json, os, re, shutil, socket, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AIRLOCK = os.path.join(ROOT, ".build", "release", "airlock")
ANCHOR = os.path.join(ROOT, "Benchmarks", "NIOAnchorHTTP2", ".build", "release", "NIOAnchorHTTP2")
BODY = '{"id":1,"name":"Alice","email":"alice@example.com","roles":["admin","editor"],"active":true}'
PORTS = {"swift-nio-http2 (anchor)": 18096, "airlock --threads 1": 18094, "airlock --threads 1 (baseline)": 18098}


def wait_for(port, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port} after {seconds} s")


def h2load(port, seconds, clients, streams):
    out = subprocess.run(
        ["h2load", "-D", str(seconds), "-c", str(clients), "-m", str(streams), "-t", "1", f"http://127.0.0.1:{port}/bench.json"],
        capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"finished in [^,]+, ([0-9.]+) req/s", out).group(1))
    succeeded = int(re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded", out).group(1))
    status = re.search(r"status codes: (\d+) 2xx", out)
    if succeeded == 0 or status is None or int(status.group(1)) == 0:
        raise SystemExit(f"no request to port {port} succeeded:\n{out}")
    return rate


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--streams", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", help="an older airlock binary, measured too")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="airlock-h2-bench-")
    stubs = os.path.join(work, "stubs.json")
    with open(stubs, "w") as f:
        json.dump({"stubs": [{"path": "/bench.json", "responses": [
            {"body": BODY, "headers": {"Content-Type": "application/json"}, "lifetime": "eternal"}]}]}, f)
    commands = {
        "swift-nio-http2 (anchor)": [ANCHOR, str(PORTS["swift-nio-http2 (anchor)"]), "1"],
        "airlock --threads 1": [AIRLOCK, "serve", stubs, "--port", str(PORTS["airlock --threads 1"]), "--quiet", "--threads", "1"],
    }
    if args.baseline:
        commands["airlock --threads 1 (baseline)"] = [args.baseline, "serve", stubs, "--port", str(PORTS["airlock --threads 1 (baseline)"]), "--quiet", "--threads", "1"]
    children = {name: subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for name, command in commands.items()}
    try:
        for name in commands:
            wait_for(PORTS[name])
            h2load(PORTS[name], 1, args.clients, args.streams)  # warm-up
        rates = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name in commands:
                rates[name].append(h2load(PORTS[name], args.seconds, args.clients, args.streams))
        anchor = statistics.median(rates["swift-nio-http2 (anchor)"])
        print(f"h2load -c{args.clients} -m{args.streams} -t1, {args.seconds} s x {args.rounds} rounds, interleaved; medians")
        print("| server | requests/s | ratio to the anchor |")
        print("| --- | --- | --- |")
        for name, values in rates.items():
            median = statistics.median(values)
            print(f"| {name} | {median:,.0f} ({', '.join(f'{v:,.0f}' for v in values)}) | {median / anchor:.2f}x |")
    finally:
        for child in children.values():
            child.terminate()
            child.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
