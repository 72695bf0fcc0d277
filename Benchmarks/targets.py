#!/usr/bin/env python3
"""Issue 48's targets, each measured in one run and printed as one Markdown table: the figure,
its anchor's, their ratio, the bound, met or missed; and, with a baseline, the same ratio for it.

    bash Benchmarks/targets.sh [--baseline REV | --no-baseline] [--seconds 5] [--rounds 3] [--requests 10000]

Run through Benchmarks/targets.sh, which installs wrk, nginx, Java and WireMock's jar first. This
script builds what it measures in release mode (`nice`d: airlock, AirlockBenchmarks, the NIO
anchor, and airlock with the HTTPS trait under .build/https), then runs, one after the other:

1. `AirlockBenchmarks --journal on --json` (in process: URLSession, core match, unmatched load,
   registration memory), this build's and the baseline's;
2. `servers.py compare --single-thread --json` (airlock beside nginx, the NIO anchor and
   WireMock, and the baseline's airlock, rounds interleaved);
3. `servers.py paths --json` (streams, the admin API, recording, HTTPS, the traffic page open:
   this build against the baseline's, rounds interleaved).

The baseline (default BASELINE below, the last commit before issue 48's engine work) is built in
a temporary git worktree; its binaries are kept under .build/benchmarks/baseline-<commit>/, so
a second run with the same baseline builds nothing. The tools' own tables are printed as they
run; the targets table comes last.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCHMARKS = os.path.join(ROOT, ".build", "benchmarks")
# The "nothing slower" rows compare with this commit unless --baseline names another: main
# before issue 48's engine work.
BASELINE = "ebb99d5"

SIZES = [1, 1_000, 100_000]
PATHS = ["stream (3 SSE events)", "https (TLS 1.3, keep-alive)", "record (in front of nginx)",
         "admin API (GET /__admin/stubs)", "page open (fixed answer, a reader on the traffic feed)"]

# The targets, the one place they are written. Each: what it says, where its figures come from
# (bench: AirlockBenchmarks' JSON; servers: servers.py compare; paths: servers.py paths), the
# measured figure's key, the anchor's key (None: the figure itself is bounded), the comparison,
# the bound, and the unit the figures are in. "Nothing slower" allows the spread of two runs of
# one binary on this machine kind (about ±10 %).
TARGETS = [
    ("`airlock serve --threads 1` requests/s; anchor: the NIO anchor (Benchmarks/NIOAnchor), one thread",
     "servers", ("airlock --threads 1", "rps"), ("swift-nio (anchor)", "rps"), ">=", 0.90, "req/s"),
    ("`airlock serve` requests/s, default threads; anchor: WireMock standalone",
     "servers", ("airlock", "rps"), ("wiremock", "rps"), ">=", 4, "req/s"),
    ("p99 of `airlock serve --threads 1`; anchor: nginx, one worker",
     "servers", ("airlock --threads 1", "p99"), ("nginx", "p99"), "<=", 1.5, "ms"),
    *[(f"URLSession GET through HTTPMock, {kind}, {size:,} stub{'s' if size > 1 else ''}, journal on, median; anchor: the minimal URLProtocol",
       "bench", (f"session.{kind}.{size}", "median"), (f"session.{kind}.{size}", "minimalMedian"), "<=", 1.05, "ns")
      for size in SIZES for kind in ("exact", "wildcard")],
    ("core match, 100,000 wildcard stubs, median; anchor: a Dictionary lookup",
     "bench", ("core.wildcard.100000", "median"), ("core.wildcard.100000", "minimalMedian"), "<=", 3, "ns"),
    ("matched p99 beside 10,000 unmatched requests, 100,000 routes; anchor: the control (the same load on another registry)",
     "bench", ("unmatched.beside", "p99"), ("unmatched.control", "p99"), "<=", 1.5, "ns"),
    ("100,000 wildcard stubs registered: peak RSS growth",
     "bench", ("register.addResponses", "peakMB"), None, "<=", 100, "MB"),
    *[(f"nothing slower: {label}, requests/s; anchor: the baseline", "paths", (label, "after", "rps"), (label, "before", "rps"), ">=", 0.90, "req/s")
      for label in PATHS],
]


def run(arguments, log=None):
    """Runs a command, its output shown, or appended to `log` (builds: printed only on failure)."""
    print("$", " ".join(arguments), flush=True)
    if log is None:
        subprocess.run(arguments, check=True)
        return
    with open(log, "a+") as f:
        if subprocess.run(arguments, stdout=f, stderr=subprocess.STDOUT).returncode != 0:
            f.seek(0)
            sys.exit(f.read()[-5000:] + f"\nfailed: {' '.join(arguments)} (the whole log: {log})")


def build(source, anchor=True, bench=True):
    """Release builds in `source`: airlock and AirlockBenchmarks (.build/release), airlock with the
    HTTPS trait (.build/https/release), and the NIO anchor (its own package)."""
    swift = ["nice", "-n", "15", "swift", "build", "-c", "release"]
    log = os.path.join(BENCHMARKS, "build.log")
    os.makedirs(BENCHMARKS, exist_ok=True)
    run(swift + ["--package-path", source, "--product", "airlock"], log)
    if bench:
        run(swift + ["--package-path", source, "--product", "AirlockBenchmarks"], log)
    run(swift + ["--package-path", source, "--product", "airlock", "--traits", "HTTPS", "--scratch-path", os.path.join(source, ".build", "https")], log)
    if anchor:
        run(swift + ["--package-path", os.path.join(source, "Benchmarks", "NIOAnchor")], log)
    return {"airlock": os.path.join(source, ".build", "release", "airlock"),
            "bench": os.path.join(source, ".build", "release", "AirlockBenchmarks") if bench else None,
            "https": os.path.join(source, ".build", "https", "release", "airlock")}


def build_baseline(revision):
    """The baseline's binaries, built once per commit in a temporary worktree and kept. Its
    AirlockBenchmarks only if it writes JSON (`--json`, from issue 48 on)."""
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", revision + "^{commit}"],
                            capture_output=True, text=True, check=True).stdout.strip()
    kept = os.path.join(BENCHMARKS, f"baseline-{commit[:12]}")
    binaries = {name: os.path.join(kept, name) for name in ("airlock", "bench", "https")}
    if not os.path.exists(binaries["airlock"]):
        work = tempfile.mkdtemp(prefix="airlock-baseline-")
        source = os.path.join(work, "Airlock")
        run(["git", "-C", ROOT, "worktree", "add", "--quiet", "--detach", source, commit])
        try:
            writes_json = '"--json"' in open(os.path.join(source, "Benchmarks", "AirlockBenchmarks", "main.swift")).read()
            built = build(source, anchor=False, bench=writes_json)
            os.makedirs(kept, exist_ok=True)
            for name in ("bench", "https", "airlock"):  # airlock last: its presence means all are kept
                if built[name]:
                    shutil.copy2(built[name], binaries[name])
        finally:
            run(["git", "-C", ROOT, "worktree", "remove", "--force", source])
            shutil.rmtree(work, ignore_errors=True)
    return commit, {name: path if os.path.exists(path) else None for name, path in binaries.items()}


def bench(binary, requests, out):
    run([binary, "--requests", str(requests), "--journal", "on", "--json", out])
    return json.load(open(out))


def lookup(figures, key):
    for part in key:
        figures = figures.get(part) if isinstance(figures, dict) else None
    return figures


def show(value, unit):
    if value is None:
        return "—"
    if unit == "ns":
        return f"{value / 1000:.2f} µs" if value >= 1000 else f"{value:.0f} ns"
    if unit == "ms":
        return f"{value:.2f} ms"
    if unit == "MB":
        return f"+{value:.0f} MB"
    return f"{value:,.0f}/s"


def compared(figures, measured_key, anchor_key):
    """The measured figure, the anchor's, and what the bound applies to: their ratio, or the
    figure itself for a target without an anchor (None where the run has no such figure)."""
    measured = lookup(figures, measured_key)
    if anchor_key is None:
        return measured, None, measured
    anchor = lookup(figures, anchor_key)
    return measured, anchor, (measured / anchor if measured is not None and anchor else None)


def table(results, baseline_results, baseline_label):
    """The targets table (Markdown), each row from `results` by source; with a baseline, a column
    with the same ratio for its build, where the run measured it (the "paths" rows are already
    this build against the baseline's)."""
    lines = ["| target | measured | anchor | ratio | bound | result |" + (f" baseline {baseline_label} |" if baseline_label else ""),
             "| --- | ---: | ---: | ---: | ---: | --- |" + (" ---: |" if baseline_label else "")]
    for label, source, measured_key, anchor_key, comparison, bound, unit in TARGETS:
        def shown(value):
            return "—" if value is None else show(value, unit) if anchor_key is None else f"{value:.2f}×"
        measured, anchor, value = compared(results.get(source), measured_key, anchor_key)
        if value is None:
            verdict = "not measured"
        else:
            verdict = "met" if (value >= bound if comparison == ">=" else value <= bound) else "**missed**"
        row = (f"| {label} | {show(measured, unit)} | {show(anchor, unit)} | {'—' if anchor_key is None else shown(value)} "
               f"| {'≥' if comparison == '>=' else '≤'} {shown(bound)} | {verdict} |")
        if baseline_label:
            before = compared(baseline_results.get(source), measured_key, anchor_key)[2] if source != "paths" else None
            row += f" {shown(before)} |"
        lines.append(row)
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", default=BASELINE, help=f"the git revision the 'nothing slower' rows compare with (default {BASELINE})")
    parser.add_argument("--no-baseline", action="store_true", help="measure this build only ('nothing slower' rows: not measured)")
    parser.add_argument("--seconds", type=int, default=5, help="wrk's seconds per round (servers.py)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per server, after a warm-up round (servers.py)")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--requests", type=int, default=10_000, help="requests per URLSession row (AirlockBenchmarks)")
    args = parser.parse_args()

    ours = build(ROOT)
    commit, before = (None, {}) if args.no_baseline else build_baseline(args.baseline)
    out = tempfile.mkdtemp(prefix="airlock-targets-")
    results, baseline_results = {}, {}
    results["bench"] = bench(ours["bench"], args.requests, os.path.join(out, "bench.json"))
    if before.get("bench"):
        baseline_results["bench"] = bench(before["bench"], args.requests, os.path.join(out, "bench-baseline.json"))
    wrk = ["--seconds", str(args.seconds), "--rounds", str(args.rounds), "--connections", str(args.connections)]
    servers = [sys.executable, os.path.join(ROOT, "Benchmarks", "servers.py")]
    run(servers + ["compare", "--single-thread", "--json", os.path.join(out, "servers.json")] + wrk
        + (["--baseline", before["airlock"]] if before else []))
    results["servers"] = json.load(open(os.path.join(out, "servers.json")))
    # The baseline's servers, under this build's names, for its column.
    baseline_results["servers"] = {name.removesuffix(" (baseline)"): figures for name, figures in results["servers"].items()
                                   if "airlock" not in name or name.endswith(" (baseline)")}
    if before:
        run(servers + ["paths", "--baseline", before["airlock"], "--tls-binary", ours["https"], "--tls-baseline", before["https"],
                       "--json", os.path.join(out, "paths.json")] + wrk)
        results["paths"] = json.load(open(os.path.join(out, "paths.json")))
    shutil.rmtree(out, ignore_errors=True)

    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True).stdout.strip()
    print()
    print(f"## Issue 48's targets: {head}{' (with uncommitted changes)' if dirty else ''}"
          + (f" against the baseline {commit[:7]}" if commit else "") + f", {os.cpu_count()} cores")
    print()
    print(f"Release builds. Over sockets: wrk -t1 -c{args.connections} -d{args.seconds}s, {args.rounds} rounds interleaved after a "
          f"warm-up, medians; in process: AirlockBenchmarks --requests {args.requests:,} --journal on. "
          "Ratio = measured / anchor; the bound applies to it.")
    print()
    print(table(results, baseline_results, commit[:7] if commit else None))


if __name__ == "__main__":
    sys.exit(main())
