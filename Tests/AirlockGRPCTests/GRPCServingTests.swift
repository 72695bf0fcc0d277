import AirlockGRPC
import Foundation
import HTTPTypes
import MockServer
import ProcessSupport
import Testing

/// gRPC calls answered by a MockServer's stubs, made by gRPC's own Python client (PyPI's grpcio,
/// `Tests/Tools/grpc_client.py`) over HTTP/2 on the server's plain port.
struct GRPCServingTests {
    static let getOrder = "/airlock.test.orders.OrderService/GetOrder"
    static let watchOrders = "/airlock.test.orders.OrderService/WatchOrders"
    static let uploadItems = "/airlock.test.orders.OrderService/UploadItems"
    static let chat = "/airlock.test.orders.OrderService/Chat"

    /// A server serving the fixture's services, with `mappings` (WireMock's JSON, an array).
    func withGRPCServer(mappings: String = "[]", _ body: (MockServer) async throws -> Void) async throws {
        let server = MockServer(configuration: .init(limits: .init(headerTimeout: 3_600, idleTimeout: 3_600)))
        server.serveGRPC(try GRPCServices(descriptorSetAt: GRPCIOClient.descriptorSet))
        let read = try WireMockMappings(data: Data(#"{"mappings": \#(mappings)}"#.utf8), source: "mappings.json", rootDirectory: FileManager.default.temporaryDirectory)
        #expect(server.registerStubs(read).isEmpty)
        try await server.start()
        do {
            try await body(server)
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    /// WireMock's gRPC extension's form: a mapping per method path, the message matched as JSON
    /// (equalToJson, matchesJsonPath), metadata as headers, a templated answer.
    @Test func mappingsMatchTheMessageAsJSONAndItsMetadata() async throws {
        let mappings = #"""
            [{"request": {"urlPath": "/airlock.test.orders.OrderService/GetOrder", "method": "POST",
                          "headers": {"x-tenant": {"equalTo": "acme"}}, "bodyPatterns": [{"equalToJson": {"id": "42"}}]},
              "response": {"status": 200, "headers": {"x-request-id": "r-1"},
                           "jsonBody": {"id": "42", "status": "STATUS_OPEN", "items": [{"sku": "A-1", "quantity": 2}], "scalars": {"anInt64": "9007199254740993"}}}},
             {"request": {"urlPath": "/airlock.test.orders.OrderService/GetOrder", "method": "POST",
                          "bodyPatterns": [{"matchesJsonPath": "$[?(@.id == 'gone')]"}]},
              "response": {"status": 200, "headers": {"grpc-status-name": "NOT_FOUND", "grpc-status-reason": "order gone was deleted"}}},
             {"priority": 9, "request": {"urlPath": "/airlock.test.orders.OrderService/GetOrder", "method": "POST",
                          "bodyPatterns": [{"matchesJsonPath": "$.id"}]},
              "response": {"status": 200, "body": "{\"id\": \"{{jsonPath request.body '$.id'}}\", \"note\": \"templated\"}",
                           "transformers": ["response-template"]}}]
            """#
        try await withGRPCServer(mappings: mappings) { server in
            let results = try await GRPCIOClient.call(port: server.port, [
                .init(name: "hit", method: Self.getOrder, requests: [#"{"id": "42"}"#], metadata: [["x-tenant", "acme"]]),
                .init(name: "gone", method: Self.getOrder, requests: [#"{"id": "gone"}"#]),
                .init(name: "templated", method: Self.getOrder, requests: [#"{"id": "7"}"#]),
                .init(name: "gzip", method: Self.getOrder, requests: [#"{"id": "42"}"#], metadata: [["x-tenant", "acme"]], compression: "gzip"),
            ])
            let hit = try #require(results["hit"])
            #expect(hit.code == "OK", "\(hit.details)")
            let order = try #require(hit.objects.first)
            #expect(order["id"] as? String == "42")
            #expect(order["status"] as? String == "STATUS_OPEN")
            #expect((order["items"] as? [[String: Any]])?.first?["sku"] as? String == "A-1")
            // A 64-bit integer beyond a Double's precision keeps its digits.
            #expect((order["scalars"] as? [String: Any])?["anInt64"] as? String == "9007199254740993")
            #expect(hit.metadata("x-request-id") == "r-1")

            let gone = try #require(results["gone"])
            #expect(gone.code == "NOT_FOUND")
            #expect(gone.details == "order gone was deleted")
            #expect(gone.messages.isEmpty)

            let templated = try #require(results["templated"])
            #expect(templated.code == "OK", "\(templated.details)")
            #expect(templated.objects.first?["id"] as? String == "7")
            #expect(templated.objects.first?["note"] as? String == "templated")

            // A gzip-compressed request message is read as the plain one.
            #expect(results["gzip"]?.code == "OK", "\(results["gzip"]?.details ?? "")")

            // The journal keeps each call's message as JSON, over HTTP/2.
            let calls = server.requests.filter { $0.path == Self.getOrder }
            #expect(calls.count == 4)
            #expect(calls.first.map { String(decoding: $0.body ?? Data(), as: UTF8.self) } == #"{"id":"42"}"#)
            // … and each answer as JSON too, its status among the fields.
            let answer = try #require(calls.first?.response)
            #expect(String(decoding: answer.body, as: UTF8.self).hasPrefix(#"{"id":"42","status":"STATUS_OPEN""#), "\(String(decoding: answer.body, as: UTF8.self))")
            #expect(answer.headerFields[HTTPField.Name("grpc-status")!] == "0")
            #expect(calls.allSatisfy { $0.httpVersion == "HTTP/2" })
        }
    }

    /// A call no stub answers ends with NOT_FOUND and the near-miss text; a method the descriptor
    /// set does not have with UNIMPLEMENTED.
    @Test func aMissEndsWithNotFoundAndTheNearestStubs() async throws {
        let mappings = #"""
            [{"request": {"urlPath": "/airlock.test.orders.OrderService/GetOrder", "method": "POST", "bodyPatterns": [{"equalToJson": {"id": "42"}}]},
              "response": {"status": 200, "jsonBody": {"id": "42"}}}]
            """#
        try await withGRPCServer(mappings: mappings) { server in
            let results = try await GRPCIOClient.call(port: server.port, [
                .init(name: "miss", method: Self.getOrder, requests: [#"{"id": "7"}"#]),
                .init(name: "unknown", method: "/airlock.test.orders.OrderService/Refund", raw: "0a0137"),
                .init(name: "broken", method: Self.getOrder, raw: "ffffffff"),
            ])
            let miss = try #require(results["miss"])
            #expect(miss.code == "NOT_FOUND")
            #expect(miss.details.hasPrefix("Airlock: no stub for POST http://127.0.0.1:\(server.port)\(Self.getOrder)"), "\(miss.details)")
            #expect(miss.details.contains(#"body (10 bytes): "{"id":"7"}""#), "\(miss.details)")
            #expect(miss.details.contains(#"body equalToJson {"id":"42"}: $.id is "7", expected "42""#), "\(miss.details)")

            let unknown = try #require(results["unknown"])
            #expect(unknown.code == "UNIMPLEMENTED")
            #expect(unknown.details.contains("/airlock.test.orders.OrderService/Refund"), "\(unknown.details)")

            let broken = try #require(results["broken"])
            #expect(broken.code == "INTERNAL")
            #expect(broken.details.hasPrefix("Airlock could not read message 1 of \(Self.getOrder) as airlock.test.orders.GetOrderRequest: "), "\(broken.details)")
        }
    }

    /// A server stream's messages, each after its pause (lower bounds only), then the status and
    /// trailing metadata; a JSON array is a stream too.
    @Test func serverStreamsKeepTheirPausesAndEndWithTheirStatus() async throws {
        try await withGRPCServer { server in
            server.addResponses(forPath: Self.watchOrders, host: "**") {
                MockResponse.grpcStream(
                    [
                        StreamPart(#"{"orderId": "42", "status": "STATUS_OPEN"}"#),
                        StreamPart(#"{"orderId": "42", "status": "STATUS_SHIPPED"}"#, after: 0.4),
                        StreamPart(#"{"orderId": "42", "status": "STATUS_CANCELLED"}"#, after: 0.4),
                    ],
                    status: .aborted,
                    statusMessage: "watch ended",
                    metadata: ["x-stream": "orders"]
                ).withTrailers(HTTPFields([HTTPField(name: HTTPField.Name("x-watch-count")!, value: "3")]))
                MockResponse.grpc(#"[{"orderId": "1"}, {"orderId": "2"}]"#)
            }
            let results = try await GRPCIOClient.call(port: server.port, [
                .init(name: "paced", method: Self.watchOrders, requests: [#"{"id": "42"}"#]),
                .init(name: "array", method: Self.watchOrders, requests: [#"{"id": "1"}"#]),
            ])
            let paced = try #require(results["paced"])
            #expect(paced.code == "ABORTED")
            #expect(paced.details == "watch ended")
            #expect(paced.objects.map { $0["status"] as? String } == ["STATUS_OPEN", "STATUS_SHIPPED", "STATUS_CANCELLED"])
            #expect(paced.metadata("x-stream") == "orders")
            #expect(paced.metadata("x-watch-count", trailing: true) == "3")
            try #require(paced.arrivals.count == 3)
            // Lower bounds from the call's start (a client read late has both at once, never
            // one early): the pauses add up.
            #expect(paced.arrivals[1] >= 0.35, "\(paced.arrivals)")
            #expect(paced.arrivals[2] >= 0.75, "\(paced.arrivals)")

            let array = try #require(results["array"])
            #expect(array.code == "OK", "\(array.details)")
            #expect(array.objects.map { $0["orderId"] as? String } == ["1", "2"])
        }
    }

    /// A client stream's messages arrive as one JSON array, matched by index; a bidirectional
    /// call is answered by a stream once the client's messages are in.
    @Test func clientStreamsArriveAsAJSONArray() async throws {
        let mappings = #"""
            [{"request": {"urlPath": "/airlock.test.orders.OrderService/UploadItems", "method": "POST",
                          "bodyPatterns": [{"matchesJsonPath": "$[?(@.sku == 'C')]"}, {"matchesJsonPath": "$[2]"}]},
              "response": {"status": 200, "jsonBody": {"count": 3, "total": {"currencyCode": "EUR", "units": "12"}}}}]
            """#
        try await withGRPCServer(mappings: mappings) { server in
            server.addResponses(forPath: Self.chat, host: "**") {
                MockResponse.grpcStream([StreamPart(#"{"orderId": "a"}"#), StreamPart(#"{"orderId": "b"}"#, after: 0.1)])
            }
            let results = try await GRPCIOClient.call(port: server.port, [
                .init(name: "upload", method: Self.uploadItems, requests: [#"{"sku": "A"}"#, #"{"sku": "B"}"#, #"{"sku": "C", "quantity": 1}"#]),
                .init(name: "chat", method: Self.chat, requests: [#"{"orderId": "1"}"#, #"{"orderId": "2"}"#]),
            ])
            let upload = try #require(results["upload"])
            #expect(upload.code == "OK", "\(upload.details)")
            #expect(upload.objects.first?["count"] as? Int == 3)
            let recorded = try #require(server.requests.first { $0.path == Self.uploadItems })
            #expect(String(decoding: recorded.body ?? Data(), as: UTF8.self) == #"[{"sku":"A"},{"sku":"B"},{"sku":"C","quantity":1}]"#)

            let chat = try #require(results["chat"])
            #expect(chat.code == "OK", "\(chat.details)")
            #expect(chat.objects.map { $0["orderId"] as? String } == ["a", "b"])
        }
    }

    /// Statuses a stub gives: by `MockResponse.grpcStatus` with trailing metadata, by an HTTP
    /// status (google.rpc.Code's pairs), and a stub whose JSON does not fit the method's type.
    @Test func statusesComeFromTheStubOrItsHTTPStatus() async throws {
        try await withGRPCServer { server in
            server.addResponses(forPath: Self.getOrder, host: "**") {
                MockResponse.grpcStatus(.permissionDenied, message: "not yours ✋", trailingMetadata: ["x-why": "policy"])
                MockResponse.plaintext("service down", status: .other(503))
                MockResponse.grpc(#"{"id": "42", "nope": true}"#)
            }
            let results = try await GRPCIOClient.call(port: server.port, [
                .init(name: "denied", method: Self.getOrder, requests: [#"{"id": "1"}"#]),
                .init(name: "down", method: Self.getOrder, requests: [#"{"id": "1"}"#]),
                .init(name: "unfit", method: Self.getOrder, requests: [#"{"id": "1"}"#]),
            ])
            #expect(results["denied"]?.code == "PERMISSION_DENIED")
            // grpc-message is percent-encoded on the wire; the client reads the text back.
            #expect(results["denied"]?.details == "not yours ✋")
            #expect(results["denied"]?.metadata("x-why", trailing: true) == "policy")
            #expect(results["down"]?.code == "UNAVAILABLE")
            #expect(results["down"]?.details == "service down")
            let unfit = try #require(results["unfit"])
            #expect(unfit.code == "INTERNAL")
            #expect(unfit.details.hasPrefix("Airlock could not encode the stub's response to \(Self.getOrder) as airlock.test.orders.Order: "), "\(unfit.details)")
            #expect(unfit.details.contains("nope"), "\(unfit.details)")
        }
    }
}
