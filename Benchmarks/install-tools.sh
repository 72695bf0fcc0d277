#!/usr/bin/env bash
# What the load tests need, installed when missing: wrk, nginx and Java 17 from Debian's packages
# (needs root), WireMock's standalone jar from PyPI's `wiremock` wheel (into .build/benchmarks).
# Used by Benchmarks/http-load.sh and Benchmarks/targets.sh.
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
