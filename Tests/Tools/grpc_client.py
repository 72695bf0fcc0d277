#!/usr/bin/env python3
"""gRPC's own Python client (PyPI's `grpcio`, a client no one here wrote) calling a server, with
messages made from a descriptor set (no generated code), for the tests of Airlock's gRPC mocks.

    python3 Tests/Tools/grpc_client.py call --target 127.0.0.1:PORT --descriptor-set SET.pb --calls CALLS.json [--tls-ca CA.pem]
    python3 Tests/Tools/grpc_client.py serve --descriptor-set SET.pb [--tls DIR]
    python3 Tests/Tools/grpc_client.py install

It installs what it needs itself, once, into a virtual environment under `.build/grpc-client/`
(grpcio, protobuf and trustme at the versions pinned below), then runs again inside it.

`call`: CALLS.json is a list of calls, made one after the other on one channel (HTTP/2 with prior
knowledge, plaintext; with `--tls-ca`, h2 through TLS's ALPN, trusting only the certificates of
CA.pem), each {"name", "method": "/package.Service/Method", "requests": [JSON text,
…], "metadata": [[key, value], …]?, "timeout": seconds?, "compression": "gzip"?, "raw": hex?}
("raw": bytes sent as the one request message as they are). The method's
streaming kinds come from the descriptor set. For each call the result line's "calls" has
{"name", "code" (e.g. "OK", "NOT_FOUND"), "details", "initial_metadata", "trailing_metadata",
"messages" (each response as `MessageToJson` text), "arrivals" (seconds from the call's start to
each response)}.

`serve`: a real gRPC server (grpcio) of the fixture's OrderService on a free loopback port, for
recording through `airlock record`: it prints `listening on 127.0.0.1:PORT` and serves until it
is stopped. GetOrder answers an order made from the request's id with metadata
`x-upstream: grpcio` and trailing metadata `x-upstream-cost: 7` (the id "missing": NOT_FOUND "no
such order"); WatchOrders streams three events 0.3 s apart; UploadItems counts the items; Chat
answers each message with one (after it arrives). With `--tls DIR` it serves h2 under TLS instead,
its certificate (for `localhost` and `127.0.0.1`) from a CA made for the run by PyPI's `trustme`,
whose certificate it writes to DIR/ca.pem before it prints the line.

Made for a test to drive as a child process, like the other scripts of Tests/Tools: a line at least
every 15 seconds while it works, and the last line one JSON object:
{"tool": "grpc_client", "command": ..., "ok": true|false, "problems": [...], "calls": [...]}.
A call that ends with a status other than OK is not a problem: the test reads its code.
Exit status: 0 ok, 1 problems, 2 the tools could not be installed or the command could not run.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.dont_write_bytecode = True  # nothing beside this script in the source tree

ROOT = Path(__file__).resolve().parents[2]
HOME = Path(os.environ.get("GRPC_CLIENT_HOME") or ROOT / ".build" / "grpc-client")
TOOL = "grpc_client"

# The versions this script was verified with: grpcio as PyPI's grpcio-tools 1.85.1 (which made
# the fixture's descriptor set) pairs it, and the protobuf the codec's tests use.
# trustme 1.2.1 makes `serve --tls`'s CA and certificate (with cryptography and what it pulled in).
REQUIREMENTS = ["grpcio==1.85.1", "protobuf==7.36.2", "trustme==1.2.1"]
CONSTRAINTS = """\
cffi==2.1.1
cryptography==50.0.2
idna==3.20
pycparser==3.12
typing-extensions==4.15.0
"""

sys.path.insert(0, str(Path(__file__).resolve().parent))
import toolenv  # noqa: E402  (Tests/Tools' shared installation and result line)
from protobuf_tools import message_classes  # noqa: E402  (a descriptor set's types, no generated code)

ENVIRONMENT = toolenv.Environment(
    TOOL, HOME, REQUIREMENTS, CONSTRAINTS,
    "import grpc, google.protobuf; print('grpcio', grpc.__version__, 'protobuf', google.protobuf.__version__)", what="grpcio",
)


class Report(toolenv.Report):
    def __init__(self, command, strict=False):
        super().__init__(TOOL, command, strict)


def method_of(pool, path):
    """The method descriptor of `/package.Service/Method`."""
    service_name, method_name = path.strip("/").split("/", 1)
    return pool.FindServiceByName(service_name).methods_by_name[method_name]


def metadata_list(metadata):
    return [[key, value.decode("latin-1") if isinstance(value, bytes) else value] for key, value in (metadata or [])]


def one_call(channel, pool, spec):
    import grpc
    from google.protobuf import json_format, message_factory

    try:
        method = method_of(pool, spec["method"])
    except KeyError:
        method = None  # a method the set does not have: raw bytes, unary
    if spec.get("raw") is not None:
        # Bytes sent as the message as they are: what a broken or foreign client sends.
        requests = [bytes.fromhex(spec["raw"])]
        serialize = lambda message: message  # noqa: E731
    else:
        request_class = message_factory.GetMessageClass(method.input_type)
        requests = [json_format.Parse(text, request_class(), descriptor_pool=pool) for text in spec.get("requests", ["{}"])]
        serialize = lambda message: message.SerializeToString()  # noqa: E731
    deserialize = message_factory.GetMessageClass(method.output_type).FromString if method is not None else (lambda data: data)
    metadata = [tuple(pair) for pair in spec.get("metadata", [])]
    timeout = spec.get("timeout", 60)
    compression = grpc.Compression.Gzip if spec.get("compression") == "gzip" else None
    kind = (method.client_streaming, method.server_streaming) if method is not None else (False, False)
    path = spec["method"]
    result = {"name": spec.get("name", path), "messages": [], "arrivals": []}
    start = time.monotonic()

    def keep(message):
        text = message.hex() if isinstance(message, bytes) else json_format.MessageToJson(message, descriptor_pool=pool, indent=None)
        result["messages"].append(text)
        result["arrivals"].append(time.monotonic() - start)

    call = None
    try:
        if kind == (False, False):
            response, call = channel.unary_unary(path, serialize, deserialize).with_call(
                requests[0], metadata=metadata, timeout=timeout, compression=compression
            )
            keep(response)
        elif kind == (True, False):
            response, call = channel.stream_unary(path, serialize, deserialize).with_call(
                iter(requests), metadata=metadata, timeout=timeout, compression=compression
            )
            keep(response)
        else:
            multi = channel.unary_stream(path, serialize, deserialize) if kind == (False, True) else channel.stream_stream(path, serialize, deserialize)
            argument = requests[0] if kind == (False, True) else iter(requests)
            call = multi(argument, metadata=metadata, timeout=timeout, compression=compression)
            for response in call:
                keep(response)
        result["code"] = call.code().name
        result["details"] = call.details() or ""
    except grpc.RpcError as error:
        call = error
        result["code"] = error.code().name
        result["details"] = error.details() or ""
    result["initial_metadata"] = metadata_list(call.initial_metadata() if call is not None else [])
    result["trailing_metadata"] = metadata_list(call.trailing_metadata() if call is not None else [])
    return result


def command_call(arguments):
    import grpc

    _, pool = message_classes(arguments.descriptor_set)
    report = Report("call")
    specs = json.loads(Path(arguments.calls).read_text())
    results = []
    if arguments.tls_ca:
        credentials = grpc.ssl_channel_credentials(root_certificates=Path(arguments.tls_ca).read_bytes())
        channel = grpc.secure_channel(arguments.target, credentials)
    else:
        channel = grpc.insecure_channel(arguments.target)
    with channel:
        for spec in specs:
            report.section = spec.get("name", spec["method"])
            try:
                result = one_call(channel, pool, spec)
                toolenv.say(f"  {result['name']}: {result['code']} {result['details'][:200]!r}, {len(result['messages'])} message(s)")
                results.append(result)
            except Exception as error:  # noqa: BLE001 — the test reads which call could not be made
                report.problem(f"{type(error).__name__}: {error}")
    report.section = ""
    report.extra["calls"] = results
    return report.finish()


def command_serve(arguments):
    """Serves OrderService from messages made by the descriptor set, until stopped."""
    import grpc
    from concurrent import futures
    from google.protobuf import json_format, message_factory

    _, pool = message_classes(arguments.descriptor_set)
    service = pool.FindServiceByName("airlock.test.orders.OrderService")

    def classes(name):
        method = service.methods_by_name[name]
        return message_factory.GetMessageClass(method.input_type), message_factory.GetMessageClass(method.output_type)

    def message(cls, text):
        return json_format.Parse(text, cls(), descriptor_pool=pool)

    def get_order(request, context):
        _, output = classes("GetOrder")
        if request.id == "missing":
            context.abort(grpc.StatusCode.NOT_FOUND, "no such order")
        context.send_initial_metadata((("x-upstream", "grpcio"),))
        context.set_trailing_metadata((("x-upstream-cost", "7"),))
        return message(output, json.dumps({"id": request.id, "status": "STATUS_SHIPPED", "items": [{"sku": "U-1", "quantity": 3}]}))

    def watch_orders(request, context):
        _, output = classes("WatchOrders")
        for index, status in enumerate(["STATUS_OPEN", "STATUS_SHIPPED", "STATUS_CANCELLED"]):
            if index:
                time.sleep(0.3)
            yield message(output, json.dumps({"orderId": request.id, "status": status}))

    def upload_items(requests, context):
        _, output = classes("UploadItems")
        count = sum(1 for _ in requests)
        return message(output, json.dumps({"count": count}))

    def chat(requests, context):
        _, output = classes("Chat")
        for request in requests:
            yield message(output, json.dumps({"orderId": "re-" + request.order_id}))

    def handler(name, kind, function):
        input_class, output_class = classes(name)
        make = {
            "unary": grpc.unary_unary_rpc_method_handler,
            "server": grpc.unary_stream_rpc_method_handler,
            "client": grpc.stream_unary_rpc_method_handler,
            "bidi": grpc.stream_stream_rpc_method_handler,
        }[kind]
        return make(function, request_deserializer=input_class.FromString, response_serializer=lambda message: message.SerializeToString())

    handlers = grpc.method_handlers_generic_handler("airlock.test.orders.OrderService", {
        "GetOrder": handler("GetOrder", "unary", get_order),
        "WatchOrders": handler("WatchOrders", "server", watch_orders),
        "UploadItems": handler("UploadItems", "client", upload_items),
        "Chat": handler("Chat", "bidi", chat),
    })
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    server.add_generic_rpc_handlers((handlers,))
    if arguments.tls:
        import trustme

        authority = trustme.CA()
        issued = authority.issue_cert("localhost", "127.0.0.1")
        credentials = grpc.ssl_server_credentials([(issued.private_key_pem.bytes(), b"".join(blob.bytes() for blob in issued.cert_chain_pems))])
        port = server.add_secure_port("127.0.0.1:0", credentials)
        ca_file = Path(arguments.tls) / "ca.pem"
        authority.cert_pem.write_to_path(str(ca_file))
        server.start()
        toolenv.say(f"listening on 127.0.0.1:{port} (TLS; clients trust {ca_file})")
    else:
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        toolenv.say(f"listening on 127.0.0.1:{port}")
    server.wait_for_termination()
    return 0


def command_install(arguments):
    report = Report("install")
    import grpc

    report.extra["grpcio"] = grpc.__version__
    return report.finish()


def parser():
    root = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = root.add_subparsers(dest="command", required=True)
    call = commands.add_parser("call")
    call.add_argument("--target", required=True)
    call.add_argument("--descriptor-set", required=True)
    call.add_argument("--calls", required=True)
    call.add_argument("--tls-ca", help="call over TLS (h2 by ALPN), trusting the certificates of this PEM file")
    call.set_defaults(run=command_call)
    serve = commands.add_parser("serve")
    serve.add_argument("--descriptor-set", required=True)
    serve.add_argument("--tls", help="serve h2 under TLS with a certificate from a CA made for the run; its certificate goes to DIR/ca.pem")
    serve.set_defaults(run=command_serve)
    install = commands.add_parser("install")
    install.set_defaults(run=command_install)
    return root


if __name__ == "__main__":
    sys.exit(toolenv.main(ENVIRONMENT, parser, __file__))
