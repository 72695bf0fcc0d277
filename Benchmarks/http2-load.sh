#!/usr/bin/env bash
# `airlock serve` over HTTP/2 beside the HTTP/2 anchor (Benchmarks/NIOAnchorHTTP2), with h2load.
#
#     bash Benchmarks/http2-load.sh [Benchmarks/http2-load.py options]   # e.g. --seconds 5 --rounds 3
#
# Installs h2load (Debian's nghttp2-client, needs root) when missing, builds airlock and the anchor
# in release mode, and runs Benchmarks/http2-load.py. Everything stays on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v h2load > /dev/null || { apt-get update -qq && apt-get install -y -qq nghttp2-client > /dev/null; }
swift build -c release --product airlock > /dev/null 2>&1
swift build -c release --package-path Benchmarks/NIOAnchorHTTP2 > /dev/null 2>&1
exec python3 Benchmarks/http2-load.py "$@"
