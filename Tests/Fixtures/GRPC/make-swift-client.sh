#!/usr/bin/env bash
# Makes the Swift code AirlockGRPCTests compiles (Tests/AirlockGRPCTests/Generated/): the messages
# of orders.proto and legacy.proto (protoc-gen-swift from swift-protobuf 1.39.0) and
# OrderService's grpc-swift 2 client and server (protoc-gen-grpc-swift-2 from grpc-swift-protobuf
# 2.4.1), both `internal`. The plugins are built in a scratch package of their own under .build
# (never by the project's build, never at test time); protoc is PyPI's grpcio-tools 1.85.1, as for
# orders.pb. Run this again after changing a .proto, and commit what it writes.
#
#   Tests/Fixtures/GRPC/make-swift-client.sh      (needs swift, python3 with venv and PyPI)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
venv=${GRPC_TOOLS_VENV:-$root/.build/grpc-tools-protoc}
plugins=${GRPC_SWIFT_PLUGINS_DIR:-$root/.build/grpc-swift-plugins}
out=$root/Tests/AirlockGRPCTests/Generated

[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check grpcio-tools==1.85.1 protobuf==7.36.2

# The plugins, at exactly the versions the generated code names.
mkdir -p "$plugins/Sources/Placeholder"
cat > "$plugins/Package.swift" <<'PACKAGE'
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "grpc-swift-plugins",
    dependencies: [
        .package(url: "https://github.com/apple/swift-protobuf.git", exact: "1.39.0"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf.git", exact: "2.4.1"),
        .package(url: "https://github.com/grpc/grpc-swift-2.git", exact: "2.4.3"),
    ],
    targets: [.target(name: "Placeholder")]
)
PACKAGE
: > "$plugins/Sources/Placeholder/Placeholder.swift"
(cd "$plugins" && swift build --product protoc-gen-swift && swift build --product protoc-gen-grpc-swift-2)
bin=$(cd "$plugins" && swift build --show-bin-path)

mkdir -p "$out"
rm -f "$out"/*.swift
cd "$here"
"$venv/bin/python" -m grpc_tools.protoc --proto_path=. \
    --plugin=protoc-gen-swift="$bin/protoc-gen-swift" \
    --swift_opt=Visibility=Internal --swift_out="$out" \
    orders.proto legacy.proto
# legacy.proto has no service: the gRPC plugin would write a file that says so and nothing else.
"$venv/bin/python" -m grpc_tools.protoc --proto_path=. \
    --plugin=protoc-gen-grpc-swift-2="$bin/protoc-gen-grpc-swift-2" \
    --grpc-swift-2_opt=Visibility=Internal,Client=true,Server=true --grpc-swift-2_out="$out" \
    orders.proto
echo "wrote $(cd "$out" && ls *.swift | tr '\n' ' ')into $out"
