import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import NIOCore
import Testing

/// A raw HTTP/1.1 request with `Connection: close`.
private func raw(_ method: String, _ path: String, host: String, headers: [String] = [], body: String = "") -> String {
    var lines = ["\(method) \(path) HTTP/1.1", "Host: \(host)", "Connection: close", "Content-Length: \(body.utf8.count)"]
    lines += headers
    return lines.joined(separator: "\r\n") + "\r\n\r\n" + body
}

/// The status code of a raw response.
private func status(_ response: String) -> Int {
    Int(response.split(separator: " ").dropFirst().first ?? "") ?? 0
}

/// The admin API's holes, each tried through a real socket the way an attacker would: another
/// local process reading files, a web page posting a form or `text/plain`, a DNS-rebinding page
/// (its own name in `Host`), and binding beyond loopback under a loopback-looking name.
struct AdminSecurityTests {

    @Test func fileResponsesAddedThroughTheAdminAPIStayInTheirFolder() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data("inside".utf8).write(to: root.appendingPathComponent("ok.txt"))
        let outside = root.deletingLastPathComponent().appendingPathComponent("outside.txt")
        try Data("outside".utf8).write(to: outside)
        defer { try? FileManager.default.removeItem(at: outside) }
        // A link inside the folder to a file outside it.
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("link.txt").path, withDestinationPath: "/etc/hostname")
        defer { try? FileManager.default.removeItem(at: root) }
        try await withServer(HTTPMock(), configuration: .init(adminFileRoot: root)) { server in
            let base = server.baseURL.absoluteString
            try await withClient { client in
                let json = [("Content-Type", "application/json")]
                for path in ["/etc/passwd", "../../../../etc/passwd", "\(root.path)/../outside.txt", "link.txt"] {
                    let stub = #"{"stubs": [{"path": "/leak", "responses": [{"file": "\#(path)"}]}]}"#
                    let refused = try await send(client, "\(base)/__admin/stubs", method: .POST, headers: json, body: stub)
                    #expect(refused.status == 400, "\(path)")
                    #expect(refused.text.contains("outside"), "\(refused.text)")
                }
                let allowed = try await send(client, "\(base)/__admin/stubs", method: .POST, headers: json, body: #"{"stubs": [{"path": "/ok", "responses": [{"file": "ok.txt"}]}]}"#)
                #expect(allowed.status == 201)
                #expect(try await send(client, "\(base)/ok").text == "inside")
                #expect(try await send(client, "\(base)/leak").status == 404, "no refused stub was registered")
            }
        }
        // A server with no folder for them refuses file responses from the admin API entirely.
        try await withServer(HTTPMock()) { server in
            try await withClient { client in
                let refused = try await send(
                    client,
                    "\(server.baseURL.absoluteString)/__admin/stubs",
                    method: .POST,
                    headers: [("Content-Type", "application/json")],
                    body: #"{"stubs": [{"path": "/x", "responses": [{"file": "/etc/hostname"}]}]}"#
                )
                #expect(refused.status == 400)
                #expect(refused.text.contains("--files DIR"))
            }
        }
    }

    @Test func aWebPageCannotChangeStubsByPostingAFormOrText() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/kept", host: "**") { MockResponse.plaintext("kept", lifetime: .eternal) }
        try await withServer(mock) { server in
            let host = "127.0.0.1:\(server.port)"
            for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
                let answer = try await rawExchange(port: server.port, raw("POST", "/__admin/reset", host: host, headers: ["Content-Type: \(type)"], body: "{}"))
                #expect(status(answer) == 415, "\(type): \(answer)")
            }
            let noType = try await rawExchange(port: server.port, raw("POST", "/__admin/reset", host: host))
            #expect(status(noType) == 415)
            #expect(try await fetch(URL(string: "\(server.baseURL.absoluteString)/kept")!).text == "kept")
        }
    }

    @Test func aRebindingPageOrAForeignOriginIsRefused() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/kept", host: "**") { MockResponse.plaintext("kept", lifetime: .eternal) }
        try await withServer(mock) { server in
            let json = "Content-Type: application/json"
            // DNS rebinding: the page's own name, now resolving to 127.0.0.1, is in Host.
            let rebound = try await rawExchange(port: server.port, raw("POST", "/__admin/reset", host: "evil.example:\(server.port)", headers: [json], body: "{}"))
            #expect(status(rebound) == 403, "\(rebound)")
            let reading = try await rawExchange(port: server.port, raw("GET", "/__admin/requests", host: "evil.example:\(server.port)"))
            #expect(status(reading) == 403)
            let wrongPort = try await rawExchange(port: server.port, raw("GET", "/__admin/requests", host: "127.0.0.1:1"))
            #expect(status(wrongPort) == 403)
            // A page of another origin (fetch with JSON would need a preflight; a simple request carries Origin).
            let foreign = try await rawExchange(
                port: server.port,
                raw("POST", "/__admin/reset", host: "127.0.0.1:\(server.port)", headers: [json, "Origin: http://evil.example"], body: "{}")
            )
            #expect(status(foreign) == 403, "\(foreign)")
            // A page of this machine on another port — `http://localhost` is port 80 — is another
            // origin, and a Host without a port names port 80 too.
            let otherLocalPage = try await rawExchange(
                port: server.port,
                raw("POST", "/__admin/reset", host: "127.0.0.1:\(server.port)", headers: [json, "Origin: http://localhost"], body: "{}")
            )
            #expect(status(otherLocalPage) == 403, "\(otherLocalPage)")
            let portless = try await rawExchange(port: server.port, raw("GET", "/__admin/requests", host: "localhost"))
            #expect(status(portless) == 403, "\(portless)")
            #expect(try await fetch(URL(string: "\(server.baseURL.absoluteString)/kept")!).text == "kept")

            // The server's own names pass.
            for host in ["127.0.0.1:\(server.port)", "localhost:\(server.port)", "[::1]:\(server.port)"] {
                let own = try await rawExchange(port: server.port, raw("GET", "/__admin/stubs", host: host, headers: ["Origin: http://localhost:\(server.port)"]))
                #expect(status(own) == 200, "\(host): \(own)")
            }
        }
    }

    @Test func bindingIsCheckedOnTheResolvedAddress() async throws {
        for host in ["0.0.0.0", "::", "::ffff:0.0.0.0"] {
            let server = MockServer(configuration: .init(host: host))
            await #expect(throws: MockServerError.self) { try await server.start() }
        }
        let loopback = MockServer(configuration: .init(host: "localhost"))
        try await loopback.start()
        try await loopback.shutdown()

        // The decision itself, on addresses as a resolver returns them.
        let cases: [(String, Bool)] = [
            ("127.0.0.1", true), ("127.3.4.5", true), ("::1", true), ("::ffff:127.0.0.1", true),
            ("0.0.0.0", false), ("::", false), ("10.1.2.3", false), ("::ffff:0.0.0.0", false), ("fe80::1", false),
        ]
        for (ip, expected) in cases {
            let address = try SocketAddress(ipAddress: ip, port: 0)
            #expect(MockServer.isLoopback(address) == expected, "\(ip)")
        }
    }
}

/// WireMock's admin requests pass the same checks as Airlock's own, and its file names stay in
/// the root's `__files`.
struct WireMockAdminSecurityTests {
    static let mapping = #"{"request": {"urlPath": "/added"}, "response": {"body": "added"}}"#

    @Test func aWebPageOrRebindingPageCannotAddOrRemoveMappingsOrStopTheServer() async throws {
        let mock = HTTPMock()
        var configuration = MockServer.Configuration()
        configuration.shutdownRequestHandler = { Issue.record("a refused request stopped the server") }
        try await withServer(mock, configuration: configuration) { server in
            let own = "127.0.0.1:\(server.port)"
            let json = "Content-Type: application/json"
            let attempts = [
                raw("POST", "/__admin/mappings", host: own, headers: ["Content-Type: text/plain"], body: Self.mapping),
                raw("POST", "/__admin/mappings", host: "evil.example:\(server.port)", headers: [json], body: Self.mapping),
                raw("POST", "/__admin/mappings", host: own, headers: [json, "Origin: http://evil.example"], body: Self.mapping),
                raw("POST", "/__admin/shutdown", host: own, headers: ["Content-Type: text/plain"]),
                raw("POST", "/__admin/shutdown", host: "evil.example:\(server.port)", headers: [json]),
                raw("DELETE", "/__admin/mappings", host: own, headers: ["Origin: http://evil.example"]),
                raw("GET", "/__admin/requests/unmatched/near-misses", host: "evil.example:\(server.port)"),
            ]
            for attempt in attempts {
                let answer = try await rawExchange(port: server.port, attempt)
                #expect([403, 415].contains(status(answer)), "\(attempt): \(answer)")
            }
            #expect(try await fetch(URL(string: "\(server.baseURL.absoluteString)/added")!).status == 404)
        }
    }

    @Test func aMappingAddedThroughTheAdminAPICannotServeAFileOutsideTheRootsFiles() async throws {
        let folder = try WireMockFolder(mappings: [:], files: ["inside.txt": "inside"])
        defer { folder.remove() }
        var configuration = MockServer.Configuration()
        configuration.wireMockRoot = folder.root
        try await withServer(HTTPMock(), configuration: configuration) { server in
            let own = "127.0.0.1:\(server.port)"
            let json = "Content-Type: application/json"
            for name in ["../../../../etc/passwd", "/etc/passwd"] {
                let body = #"{"request": {"urlPath": "/f"}, "response": {"bodyFileName": "\#(name)"}}"#
                let answer = try await rawExchange(port: server.port, raw("POST", "/__admin/mappings", host: own, headers: [json], body: body))
                #expect(status(answer) == 422, "\(name): \(answer)")
            }
            let inside = #"{"request": {"urlPath": "/f"}, "response": {"bodyFileName": "inside.txt"}}"#
            #expect(status(try await rawExchange(port: server.port, raw("POST", "/__admin/mappings", host: own, headers: [json], body: inside))) == 201)
            #expect(try await fetch(URL(string: "\(server.baseURL.absoluteString)/f")!).text == "inside")
        }
        // Without a root folder, no file at all.
        try await withServer(HTTPMock()) { server in
            let body = #"{"request": {"urlPath": "/f"}, "response": {"bodyFileName": "inside.txt"}}"#
            let answer = try await rawExchange(port: server.port, raw("POST", "/__admin/mappings", host: "127.0.0.1:\(server.port)", headers: ["Content-Type: application/json"], body: body))
            #expect(status(answer) == 422)
        }
    }
}
