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

bash Benchmarks/install-tools.sh
swift build -c release --product airlock > /dev/null 2>&1
# The anchor: a minimal SwiftNIO server on the standard pipeline, a package of its own.
swift build -c release --package-path Benchmarks/NIOAnchor > /dev/null 2>&1

if [ "${1:-}" = soak ]; then
    exec python3 Benchmarks/servers.py soak --requests "${2:-1000000}"
fi
exec python3 Benchmarks/servers.py compare --seconds "${1:-5}" --connections "${2:-32}" --rounds "${3:-3}" "${@:4}"
