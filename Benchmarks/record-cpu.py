#!/usr/bin/env python3
"""`airlock record` in front of nginx, two builds side by side: throughput and the CPU each
recorder spends per request (user and system, from /proc), fresh recorders, pairs interleaved.

    python3 Benchmarks/record-cpu.py BEFORE_AIRLOCK AFTER_AIRLOCK [--pairs 4] [--seconds 4]

Uses servers.py's nginx and recorder set-up (run Benchmarks/install-tools.sh first for wrk and
nginx). Throughput on a shared 2-core machine moves with the neighbours and with the cassette
writer's rests; the CPU per request much less.
"""
import argparse
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import servers  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--seconds", type=int, default=4)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="airlock-record-cpu-")
    servers.prepare(work)
    nginx = servers.start("nginx", work)
    binaries = [("before", args.before), ("after", args.after)]
    port = 18400
    print("| round | build | requests/s | user CPU per request | system CPU per request |")
    print("|---|---|---:|---:|---:|")
    try:
        for pair in range(args.pairs):
            for name, binary in (binaries if pair % 2 == 0 else list(reversed(binaries))):
                port += 1
                recorder = servers.serve_paths(binary, port, work, "record")
                user0, system0 = servers.cpu_seconds(recorder.pid)
                rps, _, _, count = servers.wrk(port, args.seconds, 32)
                user1, system1 = servers.cpu_seconds(recorder.pid)
                recorder.kill()
                recorder.wait()
                print(f"| {pair + 1} | {name} | {rps:,.0f} | {(user1 - user0) / count * 1e6:.0f} µs | {(system1 - system0) / count * 1e6:.0f} µs |", flush=True)
    finally:
        servers.stop([nginx[0]])
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
