#!/usr/bin/env bash
# The first-build figures of BENCHMARKS.md ("First build from a fresh clone"): clones this
# repository's commit (default HEAD) into a temporary folder, then times, on an otherwise idle
# machine,
#   1. the README's main job from nothing to its first response
#      (`swift run airlock serve Examples/stubs.json`, asked for /users until it answers);
#   2. `swift test` after it (build and run; CPU time is the build's and the run's together).
# Usage: Benchmarks/first-build.sh [commit]
set -euo pipefail
commit=${1:-HEAD}
repository=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$repository" "$work/Airlock"
cd "$work/Airlock"
git checkout -q "$commit"
port=18765

start=$(date +%s.%N)
swift run airlock serve Examples/stubs.json --port "$port" > "$work/serve.log" 2>&1 &
server=$!
until curl -fs -o /dev/null "http://127.0.0.1:$port/users"; do
    kill -0 "$server" 2> /dev/null || { cat "$work/serve.log"; echo "airlock serve exited" >&2; exit 1; }
    sleep 0.5
done
end=$(date +%s.%N)
kill -INT "$server"
wait "$server" || true
printf 'main job, first response: %.0f s\n' "$(echo "$end - $start" | bc)"

/usr/bin/time -f 'swift test after it: %e s wall, %U+%S s cpu' -o "$work/time.txt" swift test > "$work/test.log" 2>&1 \
    || { tail -30 "$work/test.log"; exit 1; }
cat "$work/time.txt"
