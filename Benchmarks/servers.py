#!/usr/bin/env python3
"""`airlock serve` beside nginx and WireMock, in one run, rounds interleaved; and a soak.

    python3 Benchmarks/servers.py compare [--seconds 5] [--connections 32] [--rounds 3]
    python3 Benchmarks/servers.py soak [--requests 1000000] [--every 100000]

Run through Benchmarks/http-load.sh, which installs wrk, nginx and Java 17 from Debian's packages
and WireMock's standalone jar from PyPI's `wiremock` wheel when they are missing, and builds
airlock in release mode. Everything listens on 127.0.0.1.

    python3 Benchmarks/servers.py compare --baseline /path/to/older/airlock   # a change, before and after
    python3 Benchmarks/servers.py compare --single-thread   # airlock on one thread too, like nginx's one worker
    python3 Benchmarks/servers.py compare --page-open       # airlock with its traffic page open too
    python3 Benchmarks/servers.py paths --baseline /path/to/older/airlock   # the other paths, before and after
    python3 Benchmarks/servers.py cpu --baseline /path/to/older/airlock     # CPU per request, one thread

compare and paths take `--json PATH` to write their medians for Benchmarks/targets.py, which
runs every target of issue 48 in one run and prints them as one table.

cpu: the CPU time each server spends per request (its user + system time from /proc over one wrk
run, divided by the requests it answered), for the anchor, `airlock serve --threads 1` and the
`--baseline` binary with `--threads 1`, runs interleaved; the median of `--runs`. Throughput on a
shared 2-core machine moves with the neighbours; CPU per request much less, so a change of a few
percent shows here first.

paths: the paths beside the fixed answer, for a change's before and after (`--baseline`), rounds
interleaved: a server-sent-event stream (three events, chunked), the admin API (`GET
/__admin/stubs`), recording (`airlock record --target` in front of nginx, every answer kept for
the cassette), and HTTPS when `--tls-binary` names a build with the `HTTPS` trait for each side
(`--tls-baseline`), and a fixed answer with the traffic page open (a reader of its live feed).
Requests per second and p99 for each, and the after/before ratio.

compare: each server is started cold and timed to its first 200; then every round runs wrk
(`-t1 -c<connections> -d<seconds>s --latency`) against nginx, airlock and WireMock in turn, after
one warm-up round each (WireMock's JIT needs it). Printed: the median over rounds of requests per
second, p50 and p99 latency; start-up to first 200; resident memory after the load; and airlock's
ratios to both.

soak: airlock serve with its default journal cap answers `--requests` requests (wrk in chunks);
its resident memory is printed every `--every` requests.
"""
import argparse
import http.client
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AIRLOCK = os.path.join(ROOT, ".build", "release", "airlock")
# A minimal SwiftNIO server on the standard HTTP/1.1 pipeline (Benchmarks/NIOAnchor): what
# `airlock serve --threads 1` costs beyond it is Airlock's own.
ANCHOR = os.path.join(ROOT, "Benchmarks", "NIOAnchor", ".build", "release", "NIOAnchor")
BODY = '{"id":1,"name":"Alice","email":"alice@example.com","roles":["admin","editor"],"active":true}'
PORTS = {"nginx": 18081, "swift-nio (anchor)": 18085, "swift-nio (anchor, pipelining)": 18087, "airlock": 18080, "wiremock": 18082, "airlock --threads 1": 18084, "airlock (baseline)": 18083,
         "airlock --threads 1 (baseline)": 18088, "airlock (page open)": 18086}


def wiremock_jar():
    return os.environ.get("WIREMOCK_JAR") or os.path.join(ROOT, ".build", "benchmarks", "wiremock-standalone.jar")


def prepare(work):
    """Writes each server's configuration for the same body under /bench.json."""
    with open(os.path.join(work, "bench.json"), "w") as f:
        f.write(BODY)
    with open(os.path.join(work, "stubs.json"), "w") as f:
        # The body inline, as WireMock's mapping has it (a `file` response is read per request).
        json.dump({"stubs": [{"path": "/bench.json", "responses": [
            {"body": BODY, "headers": {"Content-Type": "application/json"}, "lifetime": "eternal"}]},
            # The `paths` mode's stream: three server-sent events, sent chunked, no delay.
            {"path": "/stream", "responses": [
                {"events": [{"data": "one"}, {"data": {"n": 2}}, {"event": "done", "data": "three"}], "lifetime": "eternal"}]}]}, f)
    www = os.path.join(work, "www")
    os.makedirs(www)
    shutil.copy(os.path.join(work, "bench.json"), www)
    logs = os.path.join(work, "nginx", "logs")
    os.makedirs(logs)
    os.chmod(work, 0o755)  # nginx's workers run as an unprivileged user
    for path in (www, os.path.join(www, "bench.json")):
        os.chmod(path, 0o755 if os.path.isdir(path) else 0o644)
    with open(os.path.join(work, "nginx", "nginx.conf"), "w") as f:
        f.write(f"""worker_processes 1;
daemon off;
error_log {logs}/error.log;
pid {work}/nginx/nginx.pid;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    default_type application/json;
    keepalive_requests 1000000;
    server {{ listen 127.0.0.1:{PORTS['nginx']}; root {www}; }}
}}
""")
    mappings = os.path.join(work, "wiremock", "mappings")
    os.makedirs(mappings)
    with open(os.path.join(mappings, "bench.json"), "w") as f:
        json.dump({"request": {"method": "GET", "url": "/bench.json"},
                   "response": {"status": 200, "body": BODY, "headers": {"Content-Type": "application/json"}}}, f)


def command(name, work, baseline=None):
    if name == "airlock --threads 1":
        return [AIRLOCK, "serve", os.path.join(work, "stubs.json"), "--port", str(PORTS[name]), "--quiet", "--threads", "1"]
    if name == "airlock (baseline)":
        return [baseline, "serve", os.path.join(work, "stubs.json"), "--port", str(PORTS[name]), "--quiet"]
    if name == "airlock --threads 1 (baseline)":
        return [baseline, "serve", os.path.join(work, "stubs.json"), "--port", str(PORTS[name]), "--quiet", "--threads", "1"]
    if name == "swift-nio (anchor)":
        return [ANCHOR, str(PORTS[name]), "1"]
    if name == "swift-nio (anchor, pipelining)":
        # The anchor with the pipelining handler airlock needs (it holds a pipelined request
        # back until the response before it has ended).
        return [ANCHOR, str(PORTS[name]), "1", "--pipelining"]
    if name == "nginx":
        return ["nginx", "-c", os.path.join(work, "nginx", "nginx.conf"), "-p", os.path.join(work, "nginx")]
    if name in ("airlock", "airlock (page open)"):
        return [AIRLOCK, "serve", os.path.join(work, "stubs.json"), "--port", str(PORTS[name]), "--quiet"]
    return ["java", "-jar", wiremock_jar(), "--port", str(PORTS["wiremock"]), "--root-dir",
            os.path.join(work, "wiremock"), "--disable-banner"]


def start(name, work, baseline=None):
    """Starts a server and returns it with the milliseconds from spawn to its first 200."""
    url_port = PORTS[name]
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", url_port)) == 0:
            raise SystemExit(f"port {url_port} is taken (an earlier {name} still running?): the figures would be another process's")
    began = time.perf_counter()
    # Errors go to a file (a pipe nobody reads could fill and stall the server under load).
    errors = open(os.path.join(work, f"{name}.stderr"), "w+")
    process = subprocess.Popen(command(name, work, baseline), stdout=subprocess.DEVNULL, stderr=errors)
    deadline = began + 60
    while time.perf_counter() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{name} exited with {process.returncode} before answering: {open(errors.name).read()}")
        try:
            connection = http.client.HTTPConnection("127.0.0.1", url_port, timeout=1)
            connection.request("GET", "/bench.json")
            response = connection.getresponse()
            body = response.read()
            connection.close()
            if response.status == 200 and body.decode() == BODY:
                return process, (time.perf_counter() - began) * 1000
        except OSError:
            pass
        time.sleep(0.001)
    process.kill()
    raise SystemExit(f"{name} did not answer 200 within 60 s: {' '.join(command(name, work, baseline))}")


def stop(processes, killing=()):
    """Stops every process (SIGTERM; SIGKILL for those in `killing`) and waits for each."""
    processes = list(processes)
    for process in processes:
        if process in killing:
            process.kill()
        else:
            process.terminate()
    for process in processes:
        process.wait(timeout=30)


def resident_megabytes(process):
    """VmRSS of the process and its children (nginx's worker), in MB."""
    pids = [process.pid]
    children = f"/proc/{process.pid}/task/{process.pid}/children"
    if os.path.exists(children):
        pids += [int(p) for p in open(children).read().split()]
    total = 0
    for pid in pids:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total / 1024


def wrk(port, seconds, connections, path="/bench.json", scheme="http", pin=None):
    """Requests per second, p50 and p99 in ms, and the request count of one wrk run (on CPU
    `pin` if given)."""
    out = subprocess.run((["taskset", "-c", str(pin)] if pin is not None else []) + ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency",
                          f"{scheme}://127.0.0.1:{port}{path}"], capture_output=True, text=True, check=True).stdout
    if re.search(r"Non-2xx or 3xx responses|Socket errors", out):
        raise SystemExit("wrk saw errors:\n" + out)

    def ms(label):
        value, unit = re.search(rf"^\s+{label}%\s+([\d.]+)(us|ms|s)\s*$", out, re.M).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]

    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    count = int(re.search(r"(\d+) requests in", out).group(1))
    return rps, ms("50"), ms("99"), count


def follow_feed(port):
    """Reads the traffic page's live feed, as an open page does, until the server goes: what the
    "page open" server pays for (each exchange's event built and written)."""
    def read():
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port)
            connection.request("GET", "/__admin/inspector/feed")
            response = connection.getresponse()
            while response.read1(65536):
                pass
        except (OSError, http.client.HTTPException):
            pass  # the server was stopped at the end of the run
    threading.Thread(target=read, daemon=True).start()


def compare(args):
    work = tempfile.mkdtemp(prefix="airlock-bench-")
    prepare(work)
    servers, startup = {}, {}
    names = [name for name in PORTS if (args.baseline or "(baseline)" not in name)
             and (args.single_thread or "--threads 1" not in name)
             and (args.page_open or name != "airlock (page open)")
             and (args.single_thread or name != "swift-nio (anchor, pipelining)")
             and name not in args.skip]
    try:
        for name in names:
            servers[name], startup[name] = start(name, work, args.baseline)
            if name == "airlock (page open)":
                follow_feed(PORTS[name])
        results = {name: [] for name in names}
        for round_index in range(args.rounds + 1):
            for name in names:
                measured = wrk(PORTS[name], args.seconds, args.connections)
                if round_index > 0:  # round 0 warms every server up
                    results[name].append(measured)
        rss = {name: resident_megabytes(servers[name]) for name in names}
    finally:
        stop(servers.values())
        shutil.rmtree(work, ignore_errors=True)

    def median(name, index):
        return statistics.median(r[index] for r in results[name])

    if args.json:
        write_json(args.json, {name: {"rps": median(name, 0), "p50": median(name, 1), "p99": median(name, 2),
                                      "startup": startup[name], "rss": rss[name]} for name in names})
    print(f"wrk -t1 -c{args.connections} -d{args.seconds}s, {args.rounds} rounds interleaved after a warm-up round, "
          f"a {len(BODY)}-byte JSON body, keep-alive, 127.0.0.1, {os.cpu_count()} cores; medians over rounds")
    print()
    print("| server | requests/s | p50 | p99 | start-up to first 200 | RSS after load |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in names:
        print(f"| {name} | {median(name, 0):,.0f} | {median(name, 1):.2f} ms | {median(name, 2):.2f} ms "
              f"| {startup[name]:.0f} ms | {rss[name]:.0f} MB |")
    print()
    ours = [name for name in names if name.startswith("airlock")]
    for mine in ours:
        others = [name for name in names if name not in ours]
        if mine == "airlock (page open)":
            others += [name for name in ours if name in ("airlock", "airlock (baseline)")]
        elif mine.endswith(" (baseline)"):
            others.append(mine.removesuffix(" (baseline)"))  # this build, same threads
        for other in others:
            print(f"{mine} / {other}: throughput {median(mine, 0) / median(other, 0):.2f}×, "
                  f"p99 {median(mine, 2) / median(other, 2):.2f}×, start-up {startup[mine] / startup[other]:.2f}×")
    # The targets these ratios are held to, and their bounds: Benchmarks/targets.py.


def soak(args):
    work = tempfile.mkdtemp(prefix="airlock-soak-")
    prepare(work)
    process, _ = start("airlock", work)
    try:
        print(f"airlock serve (default journal cap), wrk -t1 -c32 in 2 s chunks, RSS every {args.every:,} requests")
        print()
        print("| requests | RSS |")
        print("|---:|---:|")
        served, next_report = 0, args.every
        first = None
        while served < args.requests:
            served += wrk(PORTS["airlock"], 2, 32)[3]
            while served >= next_report and next_report <= args.requests:
                rss = resident_megabytes(process)
                first = first or rss
                print(f"| {next_report:,} | {rss:.0f} MB |")
                next_report += args.every
        last = resident_megabytes(process)
        print()
        print(f"{served:,} requests; RSS at the end {last:.0f} MB, {last / first:.2f}× the first reading")
    finally:
        process.terminate()
        process.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)


def serve_paths(binary, port, work, label):
    """`binary serve` (or `record`) for the `paths` mode; returns the process once it answers."""
    if label.startswith("record"):
        arguments = [binary, "record", "--target", f"http://127.0.0.1:{PORTS['nginx']}",
                     "--cassette", os.path.join(work, f"{port}.har"), "--port", str(port), "--quiet"]
    elif label.startswith("page open"):
        process = serve_paths(binary, port, work, "fixed answer")
        follow_feed(port)
        return process
    elif label.startswith("https"):
        arguments = [binary, "serve", os.path.join(work, "stubs.json"), "--port", str(port), "--quiet", "--tls",
                     "--ca-dir", os.path.join(work, f"ca-{port}")]
    else:
        arguments = [binary, "serve", os.path.join(work, "stubs.json"), "--port", str(port), "--quiet"]
    errors = open(os.path.join(work, f"{port}.stderr"), "w+")
    process = subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=errors)
    deadline = time.perf_counter() + 60
    while time.perf_counter() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{' '.join(arguments)} exited with {process.returncode}: {open(errors.name).read()}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return process
        time.sleep(0.01)
    process.kill()
    raise SystemExit(f"{' '.join(arguments)} did not listen within 60 s")


def paths(args):
    """The other paths, before (`--baseline`) and after (this build), rounds interleaved."""
    work = tempfile.mkdtemp(prefix="airlock-paths-")
    prepare(work)
    # (label, path, scheme): what wrk asks for.
    cases = [("fixed answer", "/bench.json", "http"), ("stream (3 SSE events)", "/stream", "http"),
             ("admin API (GET /__admin/stubs)", "/__admin/stubs", "http"),
             ("record (in front of nginx)", "/bench.json", "http"),
             ("page open (fixed answer, a reader on the traffic feed)", "/bench.json", "http")]
    sides = {"after": AIRLOCK, "before": args.baseline}
    tls = {"after": args.tls_binary, "before": args.tls_baseline}
    if tls["after"] and tls["before"]:
        cases.append(("https (TLS 1.3, keep-alive)", "/bench.json", "https"))
    processes = []
    nginx = None
    try:
        nginx = subprocess.Popen(command("nginx", work), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(nginx)
        ports = {}
        running = {}
        port = 18090
        for label, _, _ in cases:
            for side in sides:
                binary = tls[side] if label.startswith("https") else sides[side]
                running[(label, side)] = serve_paths(binary, port, work, label)
                processes.append(running[(label, side)])
                ports[(label, side)] = port
                port += 1
        results = {key: [] for key in ports}
        for round_index in range(args.rounds + 1):
            for label, path, scheme in cases:
                # Each round alternates which side goes first.
                order = list(sides) if round_index % 2 == 0 else list(reversed(list(sides)))
                for side in order:
                    if label.startswith("record") and round_index > 0:
                        # A fresh recorder each round: one kept across rounds carries a cassette of
                        # every exchange so far, rewritten whole by its writer thread while the
                        # other cases (and the other side) are measured.
                        running[(label, side)].kill()
                        running[(label, side)].wait()
                        cassette = os.path.join(work, f"{ports[(label, side)]}.har")
                        if os.path.exists(cassette):
                            os.remove(cassette)  # else the new recorder would replay what the last one kept
                        running[(label, side)] = serve_paths(sides[side], ports[(label, side)], work, label)
                        processes.append(running[(label, side)])
                    measured = wrk(ports[(label, side)], args.seconds, args.connections, path, scheme)
                    if round_index > 0:
                        results[(label, side)].append(measured)
    finally:
        # The airlock servers killed, not stopped: a recorder would write every exchange it kept
        # (hundreds of thousands) to its cassette first, which is not what is measured. nginx is
        # stopped (a killed master leaves its worker behind, holding the port).
        stop(processes, killing=[p for p in processes if p is not nginx])
        shutil.rmtree(work, ignore_errors=True)

    def median(key, index):
        return statistics.median(r[index] for r in results[key])

    if args.json:
        write_json(args.json, {label: {side: {"rps": median((label, side), 0), "p99": median((label, side), 2)} for side in sides}
                               for label, _, _ in cases})
    print(f"wrk -t1 -c{args.connections} -d{args.seconds}s, {args.rounds} rounds interleaved after a warm-up round "
          f"(the side that goes first alternates), 127.0.0.1, {os.cpu_count()} cores; medians over rounds")
    print(f"before: {args.baseline}" + (f" and {args.tls_baseline}" if tls["before"] else ""))
    print()
    print("| path | before requests/s | after requests/s | after / before | before p99 | after p99 |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, _, _ in cases:
        before, after = (label, "before"), (label, "after")
        print(f"| {label} | {median(before, 0):,.0f} | {median(after, 0):,.0f} | {median(after, 0) / median(before, 0):.2f}× "
              f"| {median(before, 2):.2f} ms | {median(after, 2):.2f} ms |")


def write_json(path, figures):
    """`--json PATH`: the medians printed, for Benchmarks/targets.py (requests/s; p50, p99 and
    start-up in ms; RSS in MB)."""
    with open(path, "w") as f:
        json.dump(figures, f, indent=1)


def cpu_seconds(pid):
    """User and system CPU seconds of a process so far (/proc/PID/stat, clock ticks)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def cpu(args):
    """CPU per request of the anchor, this build and `--baseline`, each on one thread."""
    work = tempfile.mkdtemp(prefix="airlock-cpu-")
    prepare(work)
    port = 18095
    servers = {"swift-nio (anchor)": [ANCHOR, str(port), "1"],
               "airlock --threads 1": [AIRLOCK, "serve", os.path.join(work, "stubs.json"), "--port", str(port), "--quiet", "--threads", "1"]}
    if args.baseline:
        servers["baseline --threads 1"] = [args.baseline, "serve", os.path.join(work, "stubs.json"), "--port", str(port), "--quiet", "--threads", "1"]
    results = {name: [] for name in servers}
    try:
        for _ in range(args.runs):
            for name, arguments in servers.items():
                # The server on one core, wrk on the other: each run schedules alike.
                process = subprocess.Popen(["taskset", "-c", "0"] + arguments, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                try:
                    deadline = time.perf_counter() + 60
                    while True:
                        try:
                            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
                            connection.request("GET", "/bench.json")
                            if connection.getresponse().status == 200:
                                connection.close()
                                break
                        except OSError:
                            if time.perf_counter() > deadline or process.poll() is not None:
                                raise SystemExit(f"{name} did not answer: {' '.join(arguments)}")
                            time.sleep(0.01)
                    wrk(port, 2, args.connections, pin=1)  # warm-up
                    (user, system) = cpu_seconds(process.pid)
                    count = wrk(port, args.seconds, args.connections, pin=1)[3]
                    (user_after, system_after) = cpu_seconds(process.pid)
                    results[name].append(((user_after - user) / count * 1e6, (system_after - system) / count * 1e6))
                finally:
                    process.kill()
                    process.wait(timeout=30)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"CPU per request (/proc), wrk -t1 -c{args.connections} -d{args.seconds}s on CPU 1, {args.runs} runs interleaved, "
          f"one event loop thread each on CPU 0, {os.cpu_count()} cores; medians. User time is the server's own code; system time")
    print("is the kernel's TCP path and moves with how requests batch (a slower server wakes up more often per request).")
    print()
    print("| server | user per request | system per request | user, each run |")
    print("|---|---:|---:|---|")

    def user(name):
        return statistics.median(v[0] for v in results[name])

    def system(name):
        return statistics.median(v[1] for v in results[name])

    for name, values in results.items():
        print(f"| {name} | {user(name):.1f} µs | {system(name):.1f} µs | {', '.join(f'{v[0]:.1f}' for v in values)} |")
    print()
    for name in results:
        if name != "swift-nio (anchor)":
            print(f"{name} / anchor: user {user(name) / user('swift-nio (anchor)'):.2f}×, "
                  f"user + system {(user(name) + system(name)) / (user('swift-nio (anchor)') + system('swift-nio (anchor)')):.2f}×")
    if args.baseline:
        print(f"airlock --threads 1 / baseline: user {user('airlock --threads 1') / user('baseline --threads 1'):.2f}×")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="mode", required=True)
    c = sub.add_parser("compare")
    c.add_argument("--seconds", type=int, default=5)
    c.add_argument("--connections", type=int, default=32)
    c.add_argument("--rounds", type=int, default=3)
    c.add_argument("--single-thread", action="store_true",
                   help="also run airlock (and --baseline) on one event loop thread, as nginx runs one worker, and the anchor with pipelining assistance")
    c.add_argument("--baseline", help="another airlock binary (an earlier commit's release build) to run beside the others")
    c.add_argument("--page-open", action="store_true",
                   help="also run airlock with its traffic page's live feed open (a reader of /__admin/inspector/feed)")
    c.add_argument("--skip", action="append", default=[], metavar="SERVER",
                   help="leave a server out (repeatable), such as wiremock")
    c.add_argument("--json", metavar="PATH", help="also write each server's medians to PATH as JSON")
    p = sub.add_parser("paths")
    p.add_argument("--baseline", required=True, help="the airlock binary to compare with (an earlier commit's release build)")
    p.add_argument("--tls-binary", help="this build of airlock with the HTTPS trait, to measure HTTPS too")
    p.add_argument("--tls-baseline", help="the earlier build with the HTTPS trait")
    p.add_argument("--json", metavar="PATH", help="also write each path's medians, before and after, to PATH as JSON")
    p.add_argument("--seconds", type=int, default=5)
    p.add_argument("--connections", type=int, default=32)
    p.add_argument("--rounds", type=int, default=3)
    u = sub.add_parser("cpu")
    u.add_argument("--baseline", help="an earlier airlock binary, measured the same way")
    u.add_argument("--runs", type=int, default=5)
    u.add_argument("--seconds", type=int, default=3)
    u.add_argument("--connections", type=int, default=32)
    s = sub.add_parser("soak")
    s.add_argument("--requests", type=int, default=1_000_000)
    s.add_argument("--every", type=int, default=100_000)
    args = parser.parse_args()
    {"compare": compare, "paths": paths, "cpu": cpu, "soak": soak}[args.mode](args)


if __name__ == "__main__":
    sys.exit(main())
