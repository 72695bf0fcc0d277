#!/usr/bin/env bash
# Loopback load test: `airlock serve` against nginx serving the same body, measured with wrk.
#
#     bash Benchmarks/http-load.sh [duration-seconds] [connections]
#
# Installs wrk and nginx from Debian's packages when they are missing (needs root), builds
# airlock in release mode, and prints requests per second and latency for both, and the ratio.
# Everything stays on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-10}
connections=${2:-50}

if ! command -v wrk > /dev/null || ! command -v nginx > /dev/null; then
    apt-get update -qq && apt-get install -y -qq wrk nginx > /dev/null
fi
swift build -c release --product airlock > /dev/null 2>&1

work=$(mktemp -d)
trap 'kill $(jobs -p) 2> /dev/null || true; rm -rf "$work"' EXIT
body='{"id":1,"name":"Alice","email":"alice@example.com","roles":["admin","editor"],"active":true}'
printf '%s' "$body" > "$work/bench.json"
cat > "$work/stubs.json" <<JSON
{"stubs": [{"path": "/bench.json", "responses": [{"file": "bench.json", "headers": {"Content-Type": "application/json"}, "lifetime": "eternal"}]}]}
JSON
mkdir -p "$work/nginx/logs" "$work/www"
chmod 755 "$work"   # nginx's workers run as an unprivileged user
cp "$work/bench.json" "$work/www/bench.json"
chmod -R a+rX "$work/www"
cat > "$work/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
error_log $work/nginx/logs/error.log;
pid $work/nginx/nginx.pid;
events { worker_connections 1024; }
http {
    access_log off;
    default_type application/json;
    keepalive_requests 100000;
    server {
        listen 127.0.0.1:18081;
        root $work/www;
    }
}
CONF

.build/release/airlock serve "$work/stubs.json" --port 18080 --quiet > "$work/airlock.log" &
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
sleep 2
curl -fsS http://127.0.0.1:18080/bench.json > /dev/null
curl -fsS http://127.0.0.1:18081/bench.json > /dev/null

run() {
    wrk -t2 -c"$connections" -d"${duration}s" --latency "$1" | tee "$work/$2.txt" > /dev/null
    local rps latency p99
    rps=$(awk '/Requests\/sec/ {print $2}' "$work/$2.txt")
    latency=$(awk '/^    Latency/ {print $2}' "$work/$2.txt")
    p99=$(awk '/ 99%/ {print $2}' "$work/$2.txt")
    printf '| %-8s | %12s | %12s | %10s |\n' "$2" "$rps" "$latency" "$p99"
    echo "$rps" > "$work/$2.rps"
}

echo "wrk -t2 -c$connections -d${duration}s, one ${#body}-byte JSON body, keep-alive, 127.0.0.1, $(nproc) cores"
printf '| %-8s | %12s | %12s | %10s |\n' "server" "requests/s" "mean latency" "p99"
printf '|----------|--------------|--------------|------------|\n'
run http://127.0.0.1:18081/bench.json nginx
run http://127.0.0.1:18080/bench.json airlock
python3 - "$(cat "$work/airlock.rps")" "$(cat "$work/nginx.rps")" <<'PY'
import sys
airlock, nginx = float(sys.argv[1]), float(sys.argv[2])
print(f"airlock / nginx throughput: {airlock / nginx:.2f}")
PY
