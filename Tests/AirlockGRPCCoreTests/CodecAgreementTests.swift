import AirlockBase
import AirlockGRPCCore
import Foundation
import ProcessSupport
import Testing

/// The codec against Google's protobuf for Python, both ways, on the fixture's descriptor set
/// (Tests/Fixtures/GRPC, made by protoc from grpcio-tools): Python's binaries (with unknown fields,
/// unpacked and packed repeated values, merged messages) decoded by Airlock give the JSON
/// Python's `MessageToJson` gives, and Airlock's binaries parse in Python to the message Python
/// parses from the same JSON.
struct CodecAgreementTests {
    static let descriptorSetURL = Repository.fixture("GRPC/orders.pb")
    static let order = "airlock.test.orders.Order"
    static let scalars = "airlock.test.orders.Scalars"

    /// A case: a message type, its JSON, and raw wire data appended to Python's binary (hex).
    struct Case: Sendable {
        let name: String
        let type: String
        let json: String
        var extra = ""
    }

    static let cases: [Case] = [
        Case(name: "empty order", type: order, json: "{}"),
        Case(name: "scalars", type: scalars, json: """
            {"aDouble": 1.5, "aFloat": 0.1, "anInt32": -42, "anInt64": "-9223372036854775808", "aUint32": 4294967295,
             "aUint64": "18446744073709551615", "aSint32": -2147483648, "aSint64": "9223372036854775807", "aFixed32": 7,
             "aFixed64": "12345678901234567890", "anSfixed32": -7, "anSfixed64": "-12345678901234567", "aBool": true,
             "aString": "héllo ✓ 😀", "someBytes": "AAEC/w=="}
            """),
        Case(name: "scalars given as the other JSON form", type: scalars, json: """
            {"a_double": "2.25", "a_float": "-3.5", "an_int32": "17", "an_int64": 9007199254740993, "a_uint64": 18446744073709551615,
             "a_fixed64": "5", "a_bool": false, "some_bytes": "_-8", "a_string": ""}
            """),
        Case(name: "special floats", type: scalars, json: #"{"aDouble": "NaN", "aFloat": "-Infinity", "packedDouble": ["Infinity", -0.0, 1e300, 5e-324]}"#),
        Case(name: "repeated scalars", type: scalars, json: """
            {"packedInt32": [1, -1, 2147483647, 0], "packedSint64": ["-1", 2, "-9223372036854775808"], "packedFixed32": [0, 4294967295],
             "packedBool": [true, false, true], "unpackedInt32": [3, -3], "manyBytes": ["", "aGk="]}
            """),
        Case(name: "an order with every kind", type: order, json: """
            {"id": "o-1", "status": "STATUS_SHIPPED",
             "items": [{"sku": "A", "quantity": 2, "price": {"currencyCode": "EUR", "units": "12", "nanos": -500000000}, "tags": ["x", "y"]},
                       {"sku": "B"}, {}],
             "counts": {"a": 1, "b": 0, "": -5}, "itemsByLine": {"1": {"sku": "L1"}, "-9000000000": {}}, "flags": {"true": "yes", "false": ""},
             "cardToken": "tok", "priority": 0, "note": "",
             "scalars": {"anInt32": 0, "aString": "s"}, "history": ["STATUS_OPEN", 2, "STATUS_CANCELLED", 0],
             "statusByRegion": {"eu": "STATUS_OPEN", "us": "STATUS_UNSPECIFIED"}}
            """),
        Case(name: "oneof: a message member", type: order, json: #"{"voucher": {"currencyCode": "USD"}}"#),
        Case(name: "oneof: Empty", type: order, json: #"{"cash": {}}"#),
        Case(name: "oneof: a default string is still set", type: order, json: #"{"cardToken": ""}"#),
        Case(name: "enum by number, unknown to the enum", type: order, json: #"{"status": 42, "history": [7]}"#),
        Case(name: "well-known types", type: order, json: """
            {"createdAt": "2024-02-29T23:59:59.123456789Z", "ttl": "-1.500s",
             "metadata": {"a": 1, "b": [true, null, "s", {"c": {}}], "d": null},
             "anything": {"k": [1.5, "two"]}, "list": [1, "x", false, null, [], {}],
             "nickname": "", "bigWrapped": "9223372036854775807", "flagWrapped": false, "doubleWrapped": 0.5,
             "bytesWrapped": "AQ==", "uintWrapped": 4294967295, "mask": "id,items.price,scalars.aDouble",
             "stamps": ["1970-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "2024-05-01T12:00:00+02:00"]}
            """),
        Case(name: "Value holding each kind", type: order, json: #"{"anything": null}"#),
        Case(name: "Value: a string", type: order, json: #"{"anything": "text"}"#),
        Case(name: "Value: a number", type: order, json: #"{"anything": -0.25}"#),
        Case(name: "Duration and Timestamp fractions", type: order, json: #"{"ttl": "0.000001s", "createdAt": "1969-12-31T23:59:59.5Z"}"#),
        Case(name: "Any with a message of the set", type: order, json: """
            {"extra": {"@type": "type.googleapis.com/airlock.test.orders.Money", "currencyCode": "JPY", "units": "100"}}
            """),
        Case(name: "Any with a well-known type", type: order, json: """
            {"extra": {"@type": "type.googleapis.com/google.protobuf.Duration", "value": "3s"}}
            """),
        Case(name: "Any holding an Any", type: order, json: """
            {"extra": {"@type": "type.googleapis.com/google.protobuf.Any", "value": {"@type": "type.googleapis.com/google.protobuf.StringValue", "value": "deep"}}}
            """),
        Case(name: "recursive parent", type: order, json: #"{"id": "child", "parent": {"id": "p", "parent": {"id": "gp", "items": [{"sku": "z"}]}}}"#),
        Case(name: "proto2 with presence and required", type: order, json: """
            {"legacy": {"name": "", "count": 0, "enabled": false, "values": [1, 2, 3], "packedValues": [4, 5], "kind": "KIND_B"}}
            """),
        // Raw wire data Python's binary is given (hex): what a newer peer or another encoder sends.
        Case(name: "unknown fields of every wire type", type: order, json: #"{"id": "u"}"#, extra: "b83e01" + "c13e0102030405060708" + "ca3e03616263" + "cd3e01020304" + "cb3e0801cc3e" + "d03e9601"),
        Case(name: "unpacked values of a packed field and packed of an unpacked one", type: scalars, json: #"{"packedInt32": [1]}"#, extra: "8001058001ff01" + "aa0102" + "0708"),
        Case(name: "a message given twice is merged", type: order, json: #"{"scalars": {"anInt32": 1, "packedInt32": [1]}}"#, extra: "6204" + "7202" + "6161"),
        Case(name: "a oneof's last member wins", type: order, json: #"{"cardToken": "first"}"#, extra: "4200"),
        Case(name: "a map key given twice keeps the last value", type: order, json: #"{"counts": {"k": 1}}"#, extra: "2205" + "0a016b1009"),
        Case(name: "an enum number without a name", type: order, json: "{}", extra: "1063"),
        Case(name: "an implicit scalar sent at its default", type: scalars, json: "{}", extra: "1800" + "7200"),
        // Found by FuzzGRPC: an int32 sent as a varint of more than 32 bits is truncated, and at 0
        // it is not shown.
        Case(name: "an int32 varint over 32 bits", type: scalars, json: "{}", extra: "188080808010" + "18ffffffff0f"),
        Case(name: "an int32 varint over 32 bits, truncated to 0", type: scalars, json: "{}", extra: "188080808010"),
        // Found by FuzzGRPC: the largest float, written as its shortest spelling, reads back.
        Case(name: "the largest floats", type: scalars, json: "{}", extra: "15ffff7fff" + "8a0110" + "ffffffffffffef7f" + "0100000000000000"),
    ]

    @Test func airlockDecodesPythonsBinariesToPythonsJSON() async throws {
        let codec = MessageCodec(try DescriptorSet(contentsOf: Self.descriptorSetURL))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("grpc-agreement-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("cases.json")
        let output = folder.appendingPathComponent("python.json")
        let cases = JSONValue.array(Self.cases.map { item in
            .object(["name": .string(item.name), "type": .string(item.type), "json": .string(item.json), "extra": .string(item.extra)])
        })
        try cases.compactData().write(to: input)
        let run = try await ProtobufToolsRun.run(["encode", "--descriptor-set", Self.descriptorSetURL.path, "--cases", input.path, "--out", output.path])
        run.expectSuccess()
        guard run.ok, case .array(let results) = try JSONValue.parse(Data(contentsOf: output)) else { return }
        #expect(results.count == Self.cases.count)
        for (item, result) in zip(Self.cases, results) {
            guard case .object(let fields) = result else { continue }
            if case .string(let error)? = fields["error"] {
                Issue.record("\(item.name): Python refused the case: \(error)")
                continue
            }
            guard case .string(let binary)? = fields["binary"], case .string(let pythonJSON)? = fields["json"],
                let bytes = Data(base64Encoded: binary)
            else {
                Issue.record("\(item.name): no result from Python")
                continue
            }
            let expected = try JSONValue.parse(Data(pythonJSON.utf8))
            do {
                let decoded = try codec.decode(Array(bytes), as: item.type)
                let ours = String(decoding: try decoded.json.compactData(), as: UTF8.self)
                #expect(decoded.json == expected, "\(item.name): Airlock decodes Python's binary to \(ours); Python says \(pythonJSON)")
                // Airlock's JSON reads back (by Airlock) to the same JSON: a JSON round trip.
                let again = try codec.decode(try codec.encode(decoded.json, as: item.type), as: item.type)
                #expect(again.json == expected, "\(item.name): the JSON round trip changed it")
            } catch {
                Issue.record("\(item.name): Airlock cannot decode Python's binary: \(error)")
            }
        }
    }

    @Test func pythonParsesAirlocksBinariesToTheMessageOfTheJSON() async throws {
        let codec = MessageCodec(try DescriptorSet(contentsOf: Self.descriptorSetURL))
        var checked: [JSONValue] = []
        for item in Self.cases where item.extra.isEmpty {
            do {
                let bytes = try codec.encode(json: Data(item.json.utf8), as: item.type)
                checked.append(.object([
                    "name": .string(item.name), "type": .string(item.type), "json": .string(item.json),
                    "binary": .string(Data(bytes).base64EncodedString()),
                ]))
            } catch {
                Issue.record("\(item.name): Airlock cannot encode the JSON: \(error)")
            }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("grpc-check-\(UUID().uuidString).json")
        try JSONValue.array(checked).compactData().write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try await ProtobufToolsRun.run(["check", "--descriptor-set", Self.descriptorSetURL.path, "--cases", file.path])
        run.expectSuccess()
        #expect(run.result["checks"] as? Int == checked.count)
    }
}
