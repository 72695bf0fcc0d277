#!/usr/bin/env bash
# Makes orders.pb, the descriptor set the gRPC codec's tests read, from orders.proto and
# legacy.proto with protoc as PyPI's grpcio-tools ships it (the form WireMock's gRPC extension and
# grpcurl read: every import included). The tests never run protoc; run this again after changing
# a .proto and commit both.
#
#   Tests/Fixtures/GRPC/make-descriptor-set.sh      (needs python3 with venv and PyPI)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=${GRPC_TOOLS_VENV:-$here/../../../.build/grpc-tools-protoc}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check grpcio-tools==1.85.1 protobuf==7.36.2
cd "$here"
"$venv/bin/python" -m grpc_tools.protoc --proto_path=. --descriptor_set_out=orders.pb --include_imports orders.proto
echo "wrote $here/orders.pb ($(wc -c < orders.pb) bytes)"
