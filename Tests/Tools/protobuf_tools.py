#!/usr/bin/env python3
"""Google's protobuf for Python (PyPI's `protobuf`, a codec no one here wrote) as the truth for
AirlockGRPCCore's codec: JSON ⇄ binary by a descriptor set, with no generated code.

    python3 Tests/Tools/protobuf_tools.py encode --descriptor-set SET.pb --cases IN.json --out OUT.json
    python3 Tests/Tools/protobuf_tools.py check --descriptor-set SET.pb --cases IN.json
    python3 Tests/Tools/protobuf_tools.py install

It installs what it needs itself, once, into a virtual environment under `.build/protobuf-tools/`
(`protobuf` at the version pinned below; it has no dependencies), then runs again inside it.

`encode`: for each case {"name", "type", "json", "extra"?} Python parses the JSON into the message
type (`json_format.Parse`), serializes it, appends `extra` (hex: raw wire data the test adds, such
as unknown fields or unpacked repeated values), parses the result again and writes
{"name", "binary" (base64), "json" (`MessageToJson`'s text), "error"?} for each to OUT.

`check`: for each case {"name", "type", "json", "binary"} (the binary is Airlock's encoding of the
JSON) the message Python parses from Airlock's binary must equal the one it parses from the JSON.

Made for a test to drive as a child process, like the other scripts of Tests/Tools: a line at least
every 15 seconds while it works, and the last line one JSON object:
{"tool": "protobuf_tools", "command": ..., "ok": true|false, "problems": [...], "checks": N}.
Exit status: 0 ok, 1 problems, 2 the tools could not be installed or the command could not run.
"""

import argparse
import base64
import json
import os
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # nothing beside this script in the source tree

ROOT = Path(__file__).resolve().parents[2]
HOME = Path(os.environ.get("PROTOBUF_TOOLS_HOME") or ROOT / ".build" / "protobuf-tools")
TOOL = "protobuf_tools"

# The version this script was verified with (the one grpcio-tools 1.85.1 made the fixture's
# descriptor set beside); protobuf depends on nothing else.
REQUIREMENTS = ["protobuf==7.36.2"]
CONSTRAINTS = ""

sys.path.insert(0, str(Path(__file__).resolve().parent))
import toolenv  # noqa: E402  (Tests/Tools' shared installation and result line)

ENVIRONMENT = toolenv.Environment(
    TOOL, HOME, REQUIREMENTS, CONSTRAINTS,
    "import google.protobuf; print('protobuf', google.protobuf.__version__)", what="protobuf",
)


class Report(toolenv.Report):
    def __init__(self, command, strict=False):
        super().__init__(TOOL, command, strict)


def message_classes(path):
    """A function from a full type name to its message class, the set's files added to the default
    pool (where the well-known types already are, with their JSON forms)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    files = descriptor_pb2.FileDescriptorSet.FromString(Path(path).read_bytes())
    pool = descriptor_pool.Default()
    for file in files.file:
        try:
            pool.FindFileByName(file.name)
        except KeyError:
            pool.Add(file)

    def cls(name):
        return message_factory.GetMessageClass(pool.FindMessageTypeByName(name))

    return cls, pool


def command_encode(arguments):
    from google.protobuf import json_format

    cls, pool = message_classes(arguments.descriptor_set)
    report = Report("encode")
    cases = json.loads(Path(arguments.cases).read_text())
    results = []
    for case in cases:
        result = {"name": case["name"]}
        try:
            message = json_format.Parse(case["json"], cls(case["type"])(), descriptor_pool=pool)
            binary = message.SerializeToString(deterministic=True) + bytes.fromhex(case.get("extra", ""))
            again = cls(case["type"]).FromString(binary)
            result["binary"] = base64.b64encode(binary).decode()
            result["json"] = json_format.MessageToJson(again, descriptor_pool=pool, indent=None)
            report.checks += 1
        except Exception as error:  # noqa: BLE001 — the test reads which case Python refused
            result["error"] = f"{type(error).__name__}: {error}"
            toolenv.say(f"  {case['name']}: Python refuses it: {result['error']}")
        results.append(result)
    Path(arguments.out).write_text(json.dumps(results))
    report.extra["cases"] = len(results)
    return report.finish()


def command_check(arguments):
    from google.protobuf import json_format

    cls, pool = message_classes(arguments.descriptor_set)
    report = Report("check")
    for case in json.loads(Path(arguments.cases).read_text()):
        report.section = case["name"]
        try:
            expected = json_format.Parse(case["json"], cls(case["type"])(), descriptor_pool=pool)
        except Exception as error:  # noqa: BLE001
            report.problem(f"Python cannot parse the case's JSON: {error}")
            continue
        try:
            ours = cls(case["type"]).FromString(base64.b64decode(case["binary"]))
        except Exception as error:  # noqa: BLE001
            report.problem(f"Python cannot parse Airlock's binary: {error}")
            continue
        report.check(
            ours == expected,
            "Airlock's binary parses to the message Python parses from the JSON",
            json_format.MessageToJson(ours, descriptor_pool=pool, indent=None) + " vs " + json_format.MessageToJson(expected, descriptor_pool=pool, indent=None),
        )
    report.section = ""
    return report.finish()


def command_install(arguments):
    report = Report("install")
    import google.protobuf

    report.extra["protobuf"] = google.protobuf.__version__
    return report.finish()


def parser():
    root = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = root.add_subparsers(dest="command", required=True)
    encode = commands.add_parser("encode")
    encode.add_argument("--descriptor-set", required=True)
    encode.add_argument("--cases", required=True)
    encode.add_argument("--out", required=True)
    encode.set_defaults(run=command_encode)
    check = commands.add_parser("check")
    check.add_argument("--descriptor-set", required=True)
    check.add_argument("--cases", required=True)
    check.set_defaults(run=command_check)
    install = commands.add_parser("install")
    install.set_defaults(run=command_install)
    return root


if __name__ == "__main__":
    sys.exit(toolenv.main(ENVIRONMENT, parser, __file__))
