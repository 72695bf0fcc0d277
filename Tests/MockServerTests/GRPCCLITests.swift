import Foundation
import ProcessSupport
import Testing

/// `airlock serve --grpc`: gRPC calls answered from a stub file and from a WireMock root folder's
/// `grpc/` descriptor sets, made by gRPC's own Python client (PyPI's grpcio).
struct GRPCCLITests {
    /// A folder per test, removed when the test's suite instance goes (not at its last use).
    let folder = TemporaryFolder("airlock-grpc-cli")

    static let getOrder = "/airlock.test.orders.OrderService/GetOrder"

    @Test func aStubFileAnswersGRPCCallsWithTrailersAndAStream() async throws {
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let stubs = folder.url.appendingPathComponent("grpc-stubs.json")
        try Data(#"""
            {"stubs": [
              {"path": "/airlock.test.orders.OrderService/GetOrder", "method": "POST", "responses": [
                {"json": {"id": "42", "status": "STATUS_SHIPPED"}, "headers": {"x-served-by": "airlock"},
                 "trailers": {"x-cost": "3"}, "lifetime": "eternal"}]},
              {"path": "/airlock.test.orders.OrderService/WatchOrders", "method": "POST", "responses": [
                {"headers": {"grpc-status": "DEADLINE_EXCEEDED", "grpc-message": "feed paused"},
                 "parts": [{"json": {"orderId": "42"}}, {"json": {"orderId": "43"}, "delay": 0.2}]}]}
            ]}
            """#.utf8).write(to: stubs)
        let descriptorSet = GRPCIOClient.descriptorSet.path
        let airlock = try LaunchedAirlock(["serve", stubs.path, "--grpc", descriptorSet, "--port", "0"])
        defer { airlock.stopIfRunning() }
        let (banner, base) = try await airlock.banner()
        #expect(banner == "Airlock serving 2 stub(s) from \(stubs.path), and gRPC calls to the services of \(descriptorSet) at \(base)")
        let port = try #require(URL(string: base)?.port)
        let results = try await GRPCIOClient.call(port: port, [
            .init(name: "get", method: Self.getOrder, requests: [#"{"id": "42"}"#]),
            .init(name: "watch", method: "/airlock.test.orders.OrderService/WatchOrders", requests: [#"{"id": "42"}"#]),
        ])
        let get = try #require(results["get"])
        #expect(get.code == "OK", "\(get.details)")
        #expect(get.objects.first?["status"] as? String == "STATUS_SHIPPED")
        #expect(get.metadata("x-served-by") == "airlock")
        #expect(get.metadata("x-cost", trailing: true) == "3")
        let watch = try #require(results["watch"])
        #expect(watch.code == "DEADLINE_EXCEEDED")
        #expect(watch.details == "feed paused")
        #expect(watch.objects.map { $0["orderId"] as? String } == ["42", "43"])
        try #require(watch.arrivals.count == 2)
        // A lower bound from the call's start: the second message comes after its pause.
        #expect(watch.arrivals[1] >= 0.15, "\(watch.arrivals)")
        #expect(await airlock.interrupt().status == 0)
    }

    /// A WireMock root folder's `grpc/*.dsc`, as WireMock's gRPC extension reads it.
    @Test func aWireMockRootFolderReadsItsGRPCFolder() async throws {
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let root = folder.url
        try FileManager.default.createDirectory(at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("grpc"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: GRPCIOClient.descriptorSet, to: root.appendingPathComponent("grpc/orders.dsc"))
        try Data(#"""
            {"request": {"urlPath": "/airlock.test.orders.OrderService/GetOrder", "method": "POST", "bodyPatterns": [{"equalToJson": {"id": "9"}}]},
             "response": {"status": 200, "jsonBody": {"id": "9", "note": "from WireMock's form"}}}
            """#.utf8).write(to: root.appendingPathComponent("mappings/get.json"))
        let airlock = try LaunchedAirlock(["serve", "--wiremock", root.path, "--port", "0"])
        defer { airlock.stopIfRunning() }
        let (banner, base) = try await airlock.banner()
        #expect(banner.hasSuffix("and gRPC calls to the services of \(root.appendingPathComponent("grpc/orders.dsc").path) at \(base)"), "\(banner)")
        let port = try #require(URL(string: base)?.port)
        let results = try await GRPCIOClient.call(port: port, [.init(name: "get", method: Self.getOrder, requests: [#"{"id": "9"}"#])])
        #expect(results["get"]?.code == "OK", "\(results["get"]?.details ?? "")")
        #expect(results["get"]?.objects.first?["note"] as? String == "from WireMock's form")
        #expect(await airlock.interrupt().status == 0)
    }

    @Test func aDescriptorSetThatCannotBeReadStopsTheCommandNamingIt() throws {
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let broken = folder.url.appendingPathComponent("broken.pb")
        try Data([0xFF, 0x01, 0x02]).write(to: broken)
        let (status, _, errors) = try LaunchedAirlock.run(["serve", "--grpc", broken.path, "--port", "0"])
        #expect(status == 65)
        #expect(errors.hasPrefix("airlock: \(broken.path): "), "\(errors)")
    }

    #if HTTPS
    /// `airlock serve --tls --grpc`: gRPC's Python client calls over TLS, h2 picked by ALPN,
    /// trusting the Airlock CA.
    @Test func gRPCUnderTLSTrustingTheAirlockCA() async throws {
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let stubs = folder.url.appendingPathComponent("grpc-stubs.json")
        try Data(#"""
            {"stubs": [{"path": "/airlock.test.orders.OrderService/GetOrder", "method": "POST", "responses": [
              {"json": {"id": "7", "status": "STATUS_OPEN"}, "trailers": {"x-over": "tls"}}]}]}
            """#.utf8).write(to: stubs)
        let authority = folder.url.appendingPathComponent("ca")
        let airlock = try LaunchedAirlock(["serve", stubs.path, "--grpc", GRPCIOClient.descriptorSet.path, "--tls", "--ca-dir", authority.path, "--port", "0"])
        defer { airlock.stopIfRunning() }
        let (_, base) = try await airlock.banner(scheme: "https")
        let port = try #require(URL(string: base)?.port)
        let results = try await GRPCIOClient.call(
            port: port, trusting: authority.appendingPathComponent("airlock-ca.pem").path,
            [.init(name: "get", method: Self.getOrder, requests: [#"{"id": "7"}"#])]
        )
        let get = try #require(results["get"])
        #expect(get.code == "OK", "\(get.details)")
        #expect(get.objects.first?["status"] as? String == "STATUS_OPEN")
        #expect(get.metadata("x-over", trailing: true) == "tls")
        #expect(await airlock.interrupt().status == 0)
    }
    #endif
}
