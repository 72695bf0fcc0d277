#!/usr/bin/env bash
# First build of a user's package that depends on one Airlock product (BENCHMARKS.md, "First build
# of a package that uses only HTTPMock" and "… only Airgap"): clones the given commits of this
# repository into a temporary folder, writes a package whose test target depends on the products
# named, and times `swift build --build-tests` from clean right after `swift package resolve`,
# commit after commit, `rounds` times in alternating order. CPU time (user+sys) is the figure to
# compare: wall time follows whatever else the machine is doing.
#
#   Benchmarks/consumer-build.sh PRODUCTS ROUNDS COMMIT...
#   Benchmarks/consumer-build.sh "HTTPMock HTTPMockTesting" 2 029d213 HEAD
#   Benchmarks/consumer-build.sh Airgap 2 029d213 HEAD
set -euo pipefail
products=$1
rounds=$2
shift 2
repository=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

dependencies=""
imports=""
for product in $products; do
    dependencies+=".product(name: \"$product\", package: \"Airlock\"), "
    imports+="import $product"$'\n'
done
for commit in "$@"; do
    git clone -q "$repository" "$work/airlock-$commit"
    git -C "$work/airlock-$commit" checkout -q "$commit"
    mkdir -p "$work/consumer-$commit/Tests/ConsumerTests"
    cat > "$work/consumer-$commit/Package.swift" <<MANIFEST
// swift-tools-version: 6.2
import PackageDescription
let package = Package(
    name: "Consumer",
    dependencies: [.package(name: "Airlock", path: "../airlock-$commit")],
    targets: [.testTarget(name: "ConsumerTests", dependencies: [$dependencies])]
)
MANIFEST
    printf '%s\nimport Testing\n\n@Test func builds() {}\n' "$imports" > "$work/consumer-$commit/Tests/ConsumerTests/ConsumerTests.swift"
    (cd "$work/consumer-$commit" && swift package resolve > /dev/null 2>&1)
done
for round in $(seq 1 "$rounds"); do
    order=("$@")
    if [ $((round % 2)) -eq 0 ]; then
        order=()
        for ((i = $#; i > 0; i--)); do order+=("${!i}"); done
    fi
    for commit in "${order[@]}"; do
        rm -rf "$work/consumer-$commit/.build/debug" "$work/consumer-$commit/.build/x86_64-unknown-linux-gnu" "$work/consumer-$commit/.build/aarch64-unknown-linux-gnu"
        (cd "$work/consumer-$commit" && /usr/bin/time -f "%e %U %S" -o "$work/time" swift build --build-tests > "$work/build.log" 2>&1) \
            || { tail -20 "$work/build.log"; exit 1; }
        read -r wall user sys < "$work/time"
        modules=$(grep -oE "(Emitting module|Compiling) [A-Za-z0-9_]+" "$work/build.log" | awk '{print $NF}' | sort -u | grep -v "^Consumer" | tr '\n' ' ' || true)
        printf '%s  round %d  %-10s  %6.1f s wall  %6.1f s cpu  modules: %s\n' "$products" "$round" "$commit" "$wall" "$(echo "$user + $sys" | bc)" "$modules"
    done
done
