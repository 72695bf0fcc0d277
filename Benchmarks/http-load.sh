#!/usr/bin/env bash
# Loopback load test: `airlock serve` beside nginx, a minimal SwiftNIO server (the anchor,
# Benchmarks/NIOAnchor) and WireMock standalone, in one run.
#
#     bash Benchmarks/http-load.sh [seconds-per-round] [connections] [rounds] [servers.py options]   # default 5 32 3
#     bash Benchmarks/http-load.sh 5 32 3 --single-thread --baseline /tmp/airlock-before
#     bash Benchmarks/http-load.sh soak [requests]                              # default 1000000
#
# Installs what is missing — wrk, nginx and Java 17 from Debian's packages (needs root), WireMock's
# standalone jar from PyPI's `wiremock` wheel (into .build/benchmarks) — builds airlock in release
# mode, and runs Benchmarks/servers.py: throughput, p50/p99, start-up to first 200 and resident
# memory for each server, with airlock's ratios; or the soak, airlock's memory every 100,000
# requests. Everything stays on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v wrk > /dev/null || missing+=(wrk)
command -v nginx > /dev/null || missing+=(nginx)
command -v java > /dev/null || missing+=(openjdk-17-jre-headless)
if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq && apt-get install -y -qq "${missing[@]}" > /dev/null
fi
jar=.build/benchmarks/wiremock-standalone.jar
if [ ! -f "$jar" ]; then
    mkdir -p .build/benchmarks
    python3 -m pip download --quiet --no-deps --dest .build/benchmarks "wiremock==2.7.0"
    python3 - "$jar" <<'PY'
import glob, sys, zipfile
wheel = zipfile.ZipFile(glob.glob(".build/benchmarks/wiremock-*.whl")[0])
name = next(n for n in wheel.namelist() if n.endswith(".jar") and "standalone" in n)
open(sys.argv[1], "wb").write(wheel.read(name))
print("WireMock:", name.rsplit("/", 1)[-1])
PY
fi
swift build -c release --product airlock > /dev/null 2>&1
# The anchor: a minimal SwiftNIO server on the standard pipeline, a package of its own.
swift build -c release --package-path Benchmarks/NIOAnchor > /dev/null 2>&1

if [ "${1:-}" = soak ]; then
    exec python3 Benchmarks/servers.py soak --requests "${2:-1000000}"
fi
exec python3 Benchmarks/servers.py compare --seconds "${1:-5}" --connections "${2:-32}" --rounds "${3:-3}" "${@:4}"
