import AirlockBase
import AirlockGRPCCore
import Foundation
import ProcessSupport
import Testing

/// Bad input gives an error naming the field path, never a crash or a hang.
struct CodecErrorTests {
    static let codec = Result { MessageCodec(try DescriptorSet(contentsOf: Repository.fixture("GRPC/orders.pb"))) }
    static let order = "airlock.test.orders.Order"

    static func encodeError(_ json: String, as type: String = order) throws -> String {
        let codec = try codec.get()
        do {
            _ = try codec.encode(json: Data(json.utf8), as: type)
        } catch let error as CodecError {
            return error.description
        }
        Issue.record("\(json) encoded without an error")
        return ""
    }

    static func decodeError(_ bytes: [UInt8], as type: String = order) throws -> String {
        let codec = try codec.get()
        do {
            _ = try codec.decode(bytes, as: type)
        } catch let error as CodecError {
            return error.description
        }
        Issue.record("\(bytes) decoded without an error")
        return ""
    }

    @Test(arguments: [
        (#"{"items": [{}, {}, {"price": {"units": "ten"}}]}"#, "order.items[2].price.units: \"ten\" is not an integer (int64)"),
        (#"{"items": [{"nope": 1}]}"#, "order.items[0]: airlock.test.orders.Item has no field \"nope\""),
        (#"{"status": "STATUS_LOST"}"#, "order.status: \"STATUS_LOST\" is not a value of enum airlock.test.orders.Status"),
        (#"{"scalars": {"anInt32": 2147483648}}"#, "order.scalars.anInt32: 2147483648 is out of range for int32"),
        (#"{"scalars": {"anInt32": 1.5}}"#, "order.scalars.anInt32: 1.5 is not an integer (int32)"),
        (#"{"scalars": {"aBool": "yes"}}"#, "order.scalars.aBool: expected true or false for a bool"),
        (#"{"scalars": {"someBytes": "***"}}"#, "order.scalars.someBytes: \"***\" is not base64"),
        (#"{"scalars": {"aFloat": 1e39}}"#, "order.scalars.aFloat: 1e+39 is out of range for a float"),
        (#"{"counts": {"a": "x"}}"#, "order.counts[\"a\"]: \"x\" is not an integer (int32)"),
        (#"{"itemsByLine": {"one": {}}}"#, "order.itemsByLine[\"one\"]"),
        (#"{"cardToken": "a", "cash": {}}"#, "oneof payment already has cardToken"),
        (#"{"createdAt": "yesterday"}"#, "order.createdAt: expected an RFC 3339 timestamp"),
        (#"{"ttl": "5 minutes"}"#, "order.ttl: expected a duration"),
        (#"{"extra": {"@type": "type.googleapis.com/no.Such"}}"#, "order.extra: Any holds type.googleapis.com/no.Such, a type not in the descriptor set"),
        (#"{"legacy": {"count": 1}}"#, "order.legacy: the required field name is missing"),
        (#"{"items": {"sku": "x"}}"#, "order.items: expected a JSON array for a repeated field"),
        (#"[]"#, "order: expected a JSON object for airlock.test.orders.Order"),
    ])
    func jsonErrorsNameTheFieldPath(json: String, expected: String) throws {
        let message = try Self.encodeError(json)
        #expect(message.contains(expected), "\(message)")
    }

    @Test(arguments: [
        ([0x10], "order.status: the message ends inside a varint (truncated)"),
        ([0x0A, 0x05, 0x61], "order.id: malformed protobuf: a length of 5 bytes past the end of its message (1 left)"),
        ([0x1A, 0x03, 0x1A, 0x01, 0x0A], "order.items[0].price.currencyCode: the message ends inside a varint (truncated)"),
        ([0x1A, 0x04, 0x1A, 0x02, 0x10, 0x80], "order.items[0].price.units: the message ends inside a varint"),
        ([0x0D, 0, 0, 0, 0], "order.id: has wire type 5 (32-bit) where a string field (number 1) needs length-delimited"),
        ([0x10] + Array(repeating: 0xFF, count: 10) + [0x01], "a varint longer than 10 bytes"),
        ([0x00], "a tag with field number 0"),
        ([0x0F], "a tag with wire type 7"),
        ([0xC4, 0x3E], "an end-group tag (field 1000) with no group open"),
        ([0xC3, 0x3E, 0x08, 0x01], "a group (field 1000) with no end"),
        ([0x0A, 0x02, 0xC3, 0x28], "order.id: is not valid UTF-8"),
        ([0xF2, 0x01, 0x00], "order.legacy: the required field name is missing"),
    ] as [([UInt8], String)])
    func binaryErrorsNameTheFieldPath(bytes: [UInt8], expected: String) throws {
        let message = try Self.decodeError(bytes)
        #expect(message.contains(expected), "\(message)")
    }

    @Test func deepNestingStopsAtTheLimit() throws {
        // 200 nested parents (field 27): binary and JSON.
        var bytes: [UInt8] = []
        for _ in 0..<200 { bytes = [0xDA, 0x01] + varint(bytes.count) + bytes }
        let message = try Self.decodeError(bytes)
        #expect(message.contains("nest deeper than 100 levels"), "\(message)")
        let json = String(repeating: #"{"parent": "#, count: 150) + "{}" + String(repeating: "}", count: 150)
        let jsonMessage = try Self.encodeError(json)
        #expect(jsonMessage.contains("nest deeper than 100 levels"), "\(jsonMessage)")
        // Deep Struct values (JSON arrays in a Value) stop there too.
        let values = #"{"anything": "# + String(repeating: "[", count: 300) + String(repeating: "]", count: 300) + "}"
        #expect(try Self.encodeError(values).contains("nest deeper than 100 levels"))
    }

    @Test func manyRepeatedValuesAndOccurrencesDecode() throws {
        // 200,000 unpacked values of a repeated field, 20,000 map entries and 20,000 occurrences of
        // one message field (merged): each appended without copying what came before.
        let codec = try Self.codec.get()
        let unpacked = Array(repeating: [UInt8]([0xA8, 0x01, 0x01]), count: 200_000).joined()
        let scalars = try codec.decode(Array(unpacked), as: "airlock.test.orders.Scalars")
        guard case .object(let members) = scalars.json, case .array(let values)? = members["unpackedInt32"] else {
            Issue.record("no unpackedInt32")
            return
        }
        #expect(values.count == 200_000)
        var order: [UInt8] = []
        for index in 0..<20_000 {
            let key = Array(String(index).utf8)
            let entry: [UInt8] = [0x0A, UInt8(key.count)] + key + [0x10, 0x01]
            order += [0x22, UInt8(entry.count)] + entry
            order += [0x62, 0x02, 0x18, 0x01]
        }
        let decoded = try codec.decode(order, as: Self.order)
        guard case .object(let fields) = decoded.json, case .object(let counts)? = fields["counts"] else {
            Issue.record("no counts")
            return
        }
        #expect(counts.count == 20_000)
        #expect(fields["scalars"] == .object(["anInt32": .number(1)]))
    }

    @Test func unknownFieldsAreCountedAndSkipped() throws {
        let codec = try Self.codec.get()
        let decoded = try codec.decode([0x0A, 0x01, 0x61, 0xB8, 0x3E, 0x01, 0xCA, 0x3E, 0x00], as: Self.order)
        #expect(decoded.json == .object(["id": .string("a")]))
        #expect(decoded.unknownFieldCount == 2)
    }

    private func varint(_ value: Int) -> [UInt8] {
        var value = UInt64(value)
        var bytes: [UInt8] = []
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        return bytes + [UInt8(value)]
    }
}

/// The descriptor set's index and its errors.
struct DescriptorSetTests {
    static let url = Repository.fixture("GRPC/orders.pb")

    @Test func indexesMethodsWithTheirStreamingKinds() throws {
        let set = try DescriptorSet(contentsOf: Self.url)
        let expected: [(String, String, String, Bool, Bool)] = [
            ("GetOrder", "airlock.test.orders.GetOrderRequest", "airlock.test.orders.Order", false, false),
            ("WatchOrders", "airlock.test.orders.GetOrderRequest", "airlock.test.orders.OrderEvent", false, true),
            ("UploadItems", "airlock.test.orders.Item", "airlock.test.orders.UploadSummary", true, false),
            ("Chat", "airlock.test.orders.OrderEvent", "airlock.test.orders.OrderEvent", true, true),
            ("Ping", "google.protobuf.Empty", "google.protobuf.Empty", false, false),
        ]
        #expect(set.methods.count == expected.count)
        for (name, input, output, clientStreaming, serverStreaming) in expected {
            let method = try set.method(path: "/airlock.test.orders.OrderService/\(name)")
            #expect(method.inputType == input && method.outputType == output)
            #expect(method.isClientStreaming == clientStreaming && method.isServerStreaming == serverStreaming)
        }
        #expect(set.messages["airlock.test.orders.Order.CountsEntry"]?.isMapEntry == true)
        #expect(set.enums["airlock.test.orders.Status"]?.numberByName["STATUS_CANCELLED"] == -1)
    }

    @Test func aMissingMethodListsTheNearestOnes() throws {
        let set = try DescriptorSet(contentsOf: Self.url)
        #expect(throws: DescriptorSetError.self) { try set.method(path: "/airlock.test.orders.OrderService/GetOrders") }
        do {
            _ = try set.method(path: "/airlock.test.orders.OrderService/GetOrders")
        } catch {
            #expect(error.description.contains("no method /airlock.test.orders.OrderService/GetOrders in the set (nearest: /airlock.test.orders.OrderService/GetOrder"), "\(error)")
        }
    }

    @Test func aSetWithoutItsImportsSaysToPassIncludeImports() throws {
        // The set without google/protobuf/*.proto and legacy.proto: what protoc writes without
        // --include_imports.
        let data = try Data(contentsOf: Self.url)
        let whole = try DescriptorSet(serializedBytes: data)
        #expect(whole.fileNames.contains("orders.proto"))
        let onlyOrders = Self.keepingFiles(named: ["orders.proto"], from: [UInt8](data))
        do {
            _ = try DescriptorSet(serializedBytes: Data(onlyOrders), source: "orders-only.pb")
            Issue.record("a set without its imports was read")
        } catch {
            #expect(error.description.hasPrefix("orders-only.pb: orders.proto imports "), "\(error)")
            #expect(error.description.contains("--include_imports"), "\(error)")
        }
        do {
            _ = try DescriptorSet(serializedBytes: Data([0x0A, 0x05, 0xFF]), source: "junk.pb")
            Issue.record("junk was read as a descriptor set")
        } catch {
            #expect(error.description.contains("junk.pb: is not a protobuf FileDescriptorSet"), "\(error)")
        }
    }

    /// The set's `file` entries (field 1) whose name (their field 1) is listed.
    static func keepingFiles(named names: Set<String>, from bytes: [UInt8]) -> [UInt8] {
        var kept: [UInt8] = []
        var index = 0
        func varint() -> Int {
            var value = 0
            var shift = 0
            while true {
                let byte = bytes[index]
                index += 1
                value |= Int(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
        }
        while index < bytes.count {
            let start = index
            _ = varint()
            let length = varint()
            let body = Array(bytes[index..<index + length])
            index += length
            // The file's name: its first field, length-delimited.
            let nameLength = Int(body[1])
            let name = String(decoding: body[2..<2 + nameLength], as: UTF8.self)
            if names.contains(name) { kept += bytes[start..<index] }
        }
        return kept
    }
}
