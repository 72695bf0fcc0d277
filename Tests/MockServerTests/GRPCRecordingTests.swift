import Foundation
import ProcessSupport
import Testing

/// `airlock record` in front of a real gRPC server (grpcio from PyPI, `grpc_client.py serve`) and
/// `airlock serve` replaying the cassette, each called by gRPC's own Python client: every kind of
/// call, its metadata, trailers, statuses and a stream's pace, recorded and replayed.
struct GRPCRecordingTests {
    /// A folder per test, removed when the test's suite instance goes (not at its last use).
    let folder = TemporaryFolder("airlock-grpc-record")
    static let service = "/airlock.test.orders.OrderService/"

    static let calls: [GRPCIOClient.Call] = [
        .init(name: "get", method: service + "GetOrder", requests: [#"{"id": "42"}"#]),
        .init(name: "missing", method: service + "GetOrder", requests: [#"{"id": "missing"}"#]),
        .init(name: "watch", method: service + "WatchOrders", requests: [#"{"id": "9"}"#]),
        .init(name: "upload", method: service + "UploadItems", requests: [#"{"sku": "A"}"#, #"{"sku": "B"}"#]),
        .init(name: "chat", method: service + "Chat", requests: [#"{"orderId": "1"}"#, #"{"orderId": "2"}"#]),
    ]

    /// What the real server answers, whether called directly, through the recorder, or replayed.
    static func expectTheServersAnswers(_ results: [String: GRPCIOClient.Result], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let get = try #require(results["get"], sourceLocation: sourceLocation)
        #expect(get.code == "OK", "\(what): \(get.details)", sourceLocation: sourceLocation)
        #expect(get.objects.first?["status"] as? String == "STATUS_SHIPPED", "\(what)", sourceLocation: sourceLocation)
        #expect(get.metadata("x-upstream") == "grpcio", "\(what)", sourceLocation: sourceLocation)
        #expect(get.metadata("x-upstream-cost", trailing: true) == "7", "\(what)", sourceLocation: sourceLocation)
        let missing = try #require(results["missing"], sourceLocation: sourceLocation)
        #expect(missing.code == "NOT_FOUND", "\(what): \(missing.details)", sourceLocation: sourceLocation)
        #expect(missing.details == "no such order", "\(what)", sourceLocation: sourceLocation)
        let watch = try #require(results["watch"], sourceLocation: sourceLocation)
        #expect(watch.code == "OK", "\(what): \(watch.details)", sourceLocation: sourceLocation)
        #expect(watch.objects.map { $0["status"] as? String } == ["STATUS_OPEN", "STATUS_SHIPPED", "STATUS_CANCELLED"], "\(what)", sourceLocation: sourceLocation)
        if watch.arrivals.count == 3 {
            // The server's pace (0.3 s apart), as lower bounds from the call's start: a client read
            // late has the messages at once, never one early (some slack for timer granularity).
            #expect(watch.arrivals[1] >= 0.25, "\(what): \(watch.arrivals)", sourceLocation: sourceLocation)
            #expect(watch.arrivals[2] >= 0.55, "\(what): \(watch.arrivals)", sourceLocation: sourceLocation)
        }
        #expect(results["upload"]?.objects.first?["count"] as? Int == 2, "\(what)", sourceLocation: sourceLocation)
        #expect(results["chat"]?.objects.map { $0["orderId"] as? String } == ["re-1", "re-2"], "\(what)", sourceLocation: sourceLocation)
    }

    /// The real server (`grpc_client.py serve`), under TLS with a CA of its own made for the run
    /// when given a folder for the CA's certificate; its `127.0.0.1:PORT`.
    func startUpstream(tls: URL? = nil) async throws -> (process: TestProcess, address: String) {
        try await startListeningTool("grpc_client.py", ["serve", "--descriptor-set", GRPCIOClient.descriptorSet.path] + (tls.map { ["--tls", $0.path] } ?? []))
    }

    @Test func recordsEveryKindOfCallAndReplaysIt() async throws {
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let cassette = folder.url.appendingPathComponent("orders.har")
        let descriptorSet = GRPCIOClient.descriptorSet.path

        // The real server.
        let (upstream, target) = try await startUpstream()
        defer { upstream.stop() }

        // Recorded through `airlock record`, requests as JSON by the descriptor set.
        let recorderErrors = Pipe()
        let recorder = try LaunchedAirlock(["record", "--target", "http://\(target)", "--cassette", cassette.path, "--port", "0", "--grpc", descriptorSet, "--quiet"], standardError: recorderErrors)
        defer { recorder.stopIfRunning() }
        // "Airlock recording <target> into <cassette>: call <base> instead …": the base after "call".
        let (banner, _) = try await recorder.banner()
        let recorderBase = try #require(banner.components(separatedBy: ": call ").last?.split(separator: " ").first.map(String.init), "\(banner)")
        let recorderPort = try #require(URL(string: recorderBase)?.port)
        try Self.expectTheServersAnswers(try await GRPCIOClient.call(port: recorderPort, Self.calls), "through airlock record")
        let stopped = await recorder.interrupt()
        #expect(stopped.status == 0)
        let errors = String(decoding: recorderErrors.fileHandleForReading.availableData, as: UTF8.self)
        try #require(FileManager.default.fileExists(atPath: cassette.path), "airlock record wrote no cassette; it printed \(stopped.printed) and \(errors)")

        // The cassette: each call over HTTP/2, its messages as JSON both ways, its status and
        // trailing metadata kept.
        let har = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: cassette)) as? [String: Any])
        let entries = try #require((har["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(entries.count == 5)
        let requests = entries.compactMap { $0["request"] as? [String: Any] }
        let responses = entries.compactMap { $0["response"] as? [String: Any] }
        #expect(requests.allSatisfy { $0["httpVersion"] as? String == "HTTP/2" })
        #expect((requests.first?["postData"] as? [String: Any])?["text"] as? String == #"{"id":"42"}"#)
        let order = (responses.first?["content"] as? [String: Any])?["text"] as? String
        #expect(order == #"{"id":"42","status":"STATUS_SHIPPED","items":[{"sku":"U-1","quantity":3}]}"#, "\(String(describing: order))")
        let fields = { (response: [String: Any]?, key: String) in
            (response?[key] as? [[String: String]])?.map { "\($0["name"] ?? ""): \($0["value"] ?? "")" } ?? []
        }
        #expect(fields(responses.first, "headers").contains("grpc-status: 0"), "\(fields(responses.first, "headers"))")
        #expect(fields(responses.first, "_trailers") == ["x-upstream-cost: 7"])
        #expect(fields(responses.dropFirst().first, "headers").contains("grpc-status: 5"))
        #expect(fields(responses.dropFirst().first, "headers").contains("grpc-message: no such order"))
        let parts = ((responses.dropFirst(2).first?["content"] as? [String: Any])?["_parts"] as? [[String: Any]])?.compactMap { $0["text"] as? String }
        #expect(parts == [#"{"orderId":"9","status":"STATUS_OPEN"}"#, #"{"orderId":"9","status":"STATUS_SHIPPED"}"#, #"{"orderId":"9","status":"STATUS_CANCELLED"}"#])

        // Replayed by `airlock serve` with the real server gone.
        upstream.stop()
        let replay = try LaunchedAirlock(["serve", cassette.path, "--grpc", descriptorSet, "--port", "0", "--quiet"])
        defer { replay.stopIfRunning() }
        let (_, replayBase) = try await replay.banner()
        let replayPort = try #require(URL(string: replayBase)?.port)
        try Self.expectTheServersAnswers(try await GRPCIOClient.call(port: replayPort, Self.calls), "replayed by airlock serve")
        #expect(await replay.interrupt().status == 0)
    }

    /// A real gRPC server under TLS, its certificate from a CA no system trusts: `airlock record
    /// --upstream-ca` trusts that CA and speaks h2 to it through ALPN; the client calls the
    /// recorder over h2c, and the cassette keeps the calls under their `https` URLs.
    @Test func recordsFromAnUpstreamUnderTLSTrustingItsCA() async throws {
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let cassette = folder.url.appendingPathComponent("orders.har")
        let descriptorSet = GRPCIOClient.descriptorSet.path
        let (upstream, target) = try await startUpstream(tls: folder.url)
        defer { upstream.stop() }
        let caFile = folder.url.appendingPathComponent("ca.pem").path

        // Without the CA, the upstream's certificate is refused, and nothing is recorded.
        let refusing = try LaunchedAirlock(["record", "--target", "https://\(target)", "--cassette", folder.url.appendingPathComponent("refused.har").path, "--port", "0", "--grpc", descriptorSet, "--quiet"])
        defer { refusing.stopIfRunning() }
        let refusingPort = try #require(URL(string: try await refusing.banner().0.components(separatedBy: ": call ").last?.split(separator: " ").first.map(String.init) ?? "")?.port)
        let refused = try #require(try await GRPCIOClient.call(port: refusingPort, [Self.calls[0]])["get"])
        // The core's answer to a failed forward, in gRPC's form: UNAVAILABLE, saying why.
        #expect(refused.code == "UNAVAILABLE", "\(refused.details)")
        #expect(refused.details.contains("passthrough to https://\(target)/airlock.test.orders.OrderService/GetOrder failed"), "\(refused.details)")
        #expect(refused.details.contains("CERTIFICATE_VERIFY_FAILED"), "\(refused.details)")
        #expect(refused.messages.isEmpty)
        #expect(await refusing.interrupt().status == 0)

        let recorder = try LaunchedAirlock(["record", "--target", "https://\(target)", "--upstream-ca", caFile, "--cassette", cassette.path, "--port", "0", "--grpc", descriptorSet, "--quiet"])
        defer { recorder.stopIfRunning() }
        let (banner, _) = try await recorder.banner()
        let recorderPort = try #require(URL(string: banner.components(separatedBy: ": call ").last?.split(separator: " ").first.map(String.init) ?? "")?.port, "\(banner)")
        try Self.expectTheServersAnswers(try await GRPCIOClient.call(port: recorderPort, Self.calls), "through airlock record --upstream-ca")
        #expect(await recorder.interrupt().status == 0)

        let har = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: cassette)) as? [String: Any])
        let entries = try #require((har["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(entries.count == 5)
        let requests = entries.compactMap { $0["request"] as? [String: Any] }
        #expect(requests.allSatisfy { $0["httpVersion"] as? String == "HTTP/2" })
        #expect(requests.allSatisfy { ($0["url"] as? String)?.hasPrefix("https://\(target)/airlock.test.orders.OrderService/") == true }, "\(requests.map { $0["url"] ?? "" })")
        #expect(entries.compactMap { ($0["response"] as? [String: Any])?["httpVersion"] as? String }.allSatisfy { $0 == "HTTP/2" })
    }
}
