import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import NIOCore
import NIOHTTP1
import NIOSSL
import ProcessSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Record once, replay forever — byte for byte. An upstream no one here wrote (Python's sockets,
/// `Upstream/fidelity_upstream.py`) answers every kind of body and head; each case is fetched
/// from it directly first, and that live answer is what the recording proxy must relay and what
/// the replay must serve: same status, same fields in the same order (repeated and mixed-case
/// names kept), same body bytes — except the secrets the rules name.
///
/// Only framing is left out of the comparison (`Content-Length`, `Transfer-Encoding`,
/// `Connection`, `Keep-Alive`): a replay sends its body with a length where the server chunked it.
struct FidelityTests {
    /// This test's own folder, removed when the test ends.
    private let temporary = TemporaryFolder("airlock-fidelity")
    private var folder: URL { temporary.url }

    // MARK: Through the server

    @Test func theReverseProxyRelaysAndItsCassetteReplaysEveryKindByteForByte() async throws {
        let cassette = folder.appendingPathComponent("reverse.har").path
        try await withFidelityUpstream { upstream in
            let live = try await fetchAll(port: upstream) { $0.request(target: $0.target, host: "127.0.0.1:\(upstream)") }
            let recorder = try LaunchedAirlock(["record", "--target", "http://127.0.0.1:\(upstream)", "--cassette", cassette, "--port", "0", "--quiet"])
            defer { recorder.stopIfRunning() }
            let port = try lastPort(in: try #require(await recorder.lines.next(), "airlock record printed nothing"))
            let relayed = try await fetchAll(port: port) { $0.request(target: $0.target, host: "127.0.0.1:\(port)") }
            for fidelityCase in FidelityCase.all {
                expectSame(relayed[fidelityCase.name], live[fidelityCase.name], "relayed live", fidelityCase)
            }
            recorder.process.interrupt()
            #expect(await recorder.exit.status() == 0)
        }
        try expectNoSecret(inFile: cassette)
        try await expectReplay(of: cassette, equals: try await liveAnswers())
    }

    @Test func theForwardProxyRecordsEveryKindByteForByte() async throws {
        let cassette = folder.appendingPathComponent("forward.har").path
        var live: [String: WireResponse] = [:]
        try await withFidelityUpstream { upstream in
            live = try await fetchAll(port: upstream) { $0.request(target: $0.target, host: "127.0.0.1:\(upstream)") }
            let recorder = try LaunchedAirlock(["record", "--cassette", cassette, "--port", "0", "--quiet"])
            defer { recorder.stopIfRunning() }
            let port = try lastPort(in: try #require(await recorder.lines.next(), "airlock record printed nothing"))
            // Absolute-form targets, as a client sends them to its HTTP proxy.
            let relayed = try await fetchAll(port: port) {
                $0.request(target: "http://127.0.0.1:\(upstream)\($0.target)", host: "127.0.0.1:\(upstream)")
            }
            for fidelityCase in FidelityCase.all {
                expectSame(relayed[fidelityCase.name], live[fidelityCase.name], "relayed live", fidelityCase)
            }
            recorder.process.interrupt()
            #expect(await recorder.exit.status() == 0)
        }
        try expectNoSecret(inFile: cassette)
        try await expectReplay(of: cassette, equals: live)
    }

    #if HTTPS
    @Test func aRecordingOverTLSReplaysEveryKindByteForByte() async throws {
        let cassette = folder.appendingPathComponent("tls.har").path
        var live: [String: WireResponse] = [:]
        try await TLSTests.withCAFolder { caFolder in
            try await withFidelityUpstream { upstream in
                live = try await fetchAll(port: upstream) { $0.request(target: $0.target, host: "127.0.0.1:\(upstream)") }
                let recorder = try LaunchedAirlock([
                    "record", "--target", "http://127.0.0.1:\(upstream)", "--cassette", cassette, "--port", "0", "--quiet", "--tls", "--ca-dir", caFolder.path,
                ])
                defer { recorder.stopIfRunning() }
                let banner = try #require(await recorder.lines.next(), "airlock record printed nothing")
                let port = try lastPort(in: banner)
                var configuration = HTTPClient.Configuration()
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.additionalTrustRoots = [.file(caFolder.appendingPathComponent(CertificateAuthority.certificateFileName).path)]
                configuration.tlsConfiguration = tls
                // HTTP/1.1, which ALPN would otherwise not pick: only there do field names keep
                // their case (HTTP/2 sends them lowercase, RFC 9113 §8.2.1).
                configuration.httpVersion = .http1Only
                // AsyncHTTPClient keeps fields in order and repeated, and decodes no body.
                try await TLSTests.withClient(configuration) { client in
                    for fidelityCase in FidelityCase.all {
                        var request = HTTPClientRequest(url: "https://localhost:\(port)\(fidelityCase.target)")
                        request.method = HTTPMethod(rawValue: fidelityCase.method)
                        for (name, value) in fidelityCase.headers { request.headers.add(name: name, value: value) }
                        if let body = fidelityCase.body { request.body = .bytes(ByteBuffer(string: body)) }
                        let response = try await client.execute(request, timeout: hangGuard)
                        let body = try await response.body.collect(upTo: 1 << 20)
                        let relayed = WireResponse(
                            status: Int(response.status.code),
                            fields: response.headers.map { WireResponse.Field(name: $0.name, value: $0.value) },
                            body: Array(body.readableBytesView)
                        )
                        expectSame(relayed, live[fidelityCase.name], "relayed over TLS", fidelityCase)
                    }
                }
                recorder.process.interrupt()
                #expect(await recorder.exit.status() == 0)
            }
        }
        try expectNoSecret(inFile: cassette)
        try await expectReplay(of: cassette, equals: live)
    }
    #endif

    // MARK: In process

    @Test func anInProcessCassetteReplaysWhatTheURLSessionSaw() async throws {
        let file = folder.appendingPathComponent("in-process.har")
        // The session decodes every coding libcurl reads (gzip, deflate, br here) before the mock
        // sees the body: what is recorded and replayed is what the session delivered.
        let cases = FidelityCase.all
        var live: [String: SessionResponse] = [:]
        try await withFidelityUpstream { upstream in
            let session = URLSession(configuration: .ephemeral)
            defer { session.finishTasksAndInvalidate() }
            for fidelityCase in cases {
                live[fidelityCase.name] = try await SessionResponse.fetch(fidelityCase, port: upstream, session: session)
            }
            let cassette = try Cassette(contentsOf: file, mode: .all, environment: [:])
            let recorder = HTTPMock(cassette: cassette)
            for fidelityCase in cases {
                let relayed = try await SessionResponse.fetch(fidelityCase, port: upstream, session: recorder.urlSession)
                #expect(relayed == live[fidelityCase.name], "\(fidelityCase.name): relayed \(relayed) live \(String(describing: live[fidelityCase.name]))")
            }
            try cassette.save()
        }
        try expectNoSecret(inFile: file.path)
        // The upstream is gone: the replay answers alone, as the session saw it then.
        let replay = HTTPMock(cassette: try Cassette(contentsOf: file, mode: .none, environment: [:]))
        for fidelityCase in cases {
            let replayed = try await SessionResponse.fetch(fidelityCase, port: 9, session: replay.urlSession, host: try #require(live[fidelityCase.name]).host)
            let expected = try #require(live[fidelityCase.name]).redacted(fidelityCase)
            #expect(replayed == expected, "\(fidelityCase.name): replayed \(replayed) expected \(expected)")
        }

        // The same file over a socket: each status and body as the session saw them (a body the
        // session decoded goes out decoded, without its Content-Encoding).
        let server = try LaunchedAirlock(["serve", file.path, "--port", "0", "--quiet"])
        defer { server.stopIfRunning() }
        let port = try lastPort(in: try #require(await server.lines.next(), "airlock serve printed nothing"))
        let served = try await fetchAll(port: port) { $0.request(target: $0.target, host: "127.0.0.1:\(port)") }
        for fidelityCase in cases {
            let expected = try #require(live[fidelityCase.name]).redacted(fidelityCase)
            let answer = try #require(served[fidelityCase.name])
            #expect(answer.status == expected.status && Data(answer.body) == expected.body, "\(fidelityCase.name): served \(answer)")
            #expect(!answer.fields.contains { $0.name.lowercased() == "content-encoding" }, "\(fidelityCase.name)")
        }
        server.process.interrupt()
        #expect(await server.exit.status() == 0)
    }

    @Test func aCassetteRecordedByTheServerReplaysInProcessAsAURLSessionWouldHaveSeenIt() async throws {
        let cassette = folder.appendingPathComponent("server-to-session.har").path
        // Airlock decodes gzip and deflate for the session; a br body recorded on the wire reaches
        // an in-process client still encoded (no brotli decoder here), as the docs say.
        let cases = FidelityCase.all.filter { $0.name != "br" }
        var live: [String: SessionResponse] = [:]
        try await withFidelityUpstream { upstream in
            let session = URLSession(configuration: .ephemeral)
            defer { session.finishTasksAndInvalidate() }
            for fidelityCase in cases {
                live[fidelityCase.name] = try await SessionResponse.fetch(fidelityCase, port: upstream, session: session)
            }
            let recorder = try LaunchedAirlock(["record", "--target", "http://127.0.0.1:\(upstream)", "--cassette", cassette, "--port", "0", "--quiet"])
            defer { recorder.stopIfRunning() }
            let port = try lastPort(in: try #require(await recorder.lines.next(), "airlock record printed nothing"))
            _ = try await fetchAll(port: port) { $0.request(target: $0.target, host: "127.0.0.1:\(port)") }
            recorder.process.interrupt()
            #expect(await recorder.exit.status() == 0)
        }
        var matching = Cassette.Matching()
        matching.matchesAnyHost = true
        let replay = HTTPMock(cassette: try Cassette(contentsOf: URL(fileURLWithPath: cassette), mode: .none, matching: matching, environment: [:]))
        for fidelityCase in cases {
            let replayed = try await SessionResponse.fetch(fidelityCase, port: 9, session: replay.urlSession)
            // The gzip and deflate bodies went into the file as the server sent them; the session
            // gets them decoded, as it did from the server.
            let expected = try #require(live[fidelityCase.name]).redacted(fidelityCase)
            #expect(replayed.status == expected.status && replayed.body == expected.body, "\(fidelityCase.name): replayed \(replayed) expected \(expected)")
            #expect(replayed.comparedFields == expected.comparedFields, "\(fidelityCase.name)")
        }
    }

    // MARK: Helpers

    /// The upstream's answers, fetched directly.
    private func liveAnswers() async throws -> [String: WireResponse] {
        var live: [String: WireResponse] = [:]
        try await withFidelityUpstream { upstream in
            live = try await fetchAll(port: upstream) { $0.request(target: $0.target, host: "127.0.0.1:\(upstream)") }
        }
        return live
    }

    /// Serves `cassette` with `airlock serve` and checks each case's replay against `live`.
    private func expectReplay(of cassette: String, equals live: [String: WireResponse]) async throws {
        let server = try LaunchedAirlock(["serve", cassette, "--port", "0", "--quiet"])
        defer { server.stopIfRunning() }
        let port = try lastPort(in: try #require(await server.lines.next(), "airlock serve printed nothing"))
        let replayed = try await fetchAll(port: port) { $0.request(target: $0.target, host: "127.0.0.1:\(port)") }
        for fidelityCase in FidelityCase.all {
            expectSame(replayed[fidelityCase.name], live[fidelityCase.name].map(fidelityCase.redacted), "replayed", fidelityCase)
        }
        server.process.interrupt()
        #expect(await server.exit.status() == 0)
    }

    private func expectNoSecret(inFile path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for secret in FidelityCase.secrets {
            #expect(!text.contains(secret), "\(secret) reached \(path)")
        }
    }

    private func expectSame(_ actual: WireResponse?, _ expected: WireResponse?, _ what: String, _ fidelityCase: FidelityCase, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let actual, let expected else {
            Issue.record("\(fidelityCase.name): \(what) \(String(describing: actual)), expected \(String(describing: expected))", sourceLocation: sourceLocation)
            return
        }
        #expect(actual.status == expected.status, "\(fidelityCase.name) \(what): status", sourceLocation: sourceLocation)
        #expect(actual.comparedFields == expected.comparedFields, "\(fidelityCase.name) \(what): fields", sourceLocation: sourceLocation)
        #expect(actual.body == expected.body, "\(fidelityCase.name) \(what): body \(actual.bodyText) expected \(expected.bodyText)", sourceLocation: sourceLocation)
    }
}

/// One request of the table and what its answer shows.
struct FidelityCase: Sendable, CustomTestStringConvertible {
    let name: String
    let method: String
    let target: String
    var headers: [(String, String)] = []
    var body: String?
    /// The replay's body when the rules hide something in it; `nil` when it is the live body.
    var redactedBody: String?
    /// The replay's values of fields the rules hide, in order, by lowercased name.
    var redactedValues: [String: [String]] = [:]

    var testDescription: String { name }

    /// Values the table's requests carry that must reach no file.
    static let secrets = ["tok_abcdef123", "s3cr3t-pass"]

    static let all: [FidelityCase] = [
        FidelityCase(name: "json with odd spacing, escapes, floats and big integers", method: "GET", target: "/json-odd"),
        FidelityCase(name: "ndjson", method: "GET", target: "/ndjson"),
        FidelityCase(name: "form", method: "GET", target: "/form"),
        FidelityCase(name: "binary", method: "GET", target: "/binary"),
        FidelityCase(name: "gzip", method: "GET", target: "/gzip"),
        FidelityCase(name: "deflate", method: "GET", target: "/deflate"),
        FidelityCase(name: "br", method: "GET", target: "/br"),
        FidelityCase(name: "chunked", method: "GET", target: "/chunked"),
        FidelityCase(name: "empty", method: "GET", target: "/empty"),
        FidelityCase(name: "204", method: "GET", target: "/no-content"),
        FidelityCase(name: "304", method: "GET", target: "/not-modified", headers: [("If-None-Match", #""v1""#)]),
        FidelityCase(
            name: "repeated Set-Cookie",
            method: "GET",
            target: "/cookies",
            // A cookie's value is a credential: only it is hidden, each field kept with its attributes.
            redactedValues: ["set-cookie": ["a=[REDACTED]; Path=/; Expires=Wed, 21 Oct 2037 07:28:00 GMT", "b=[REDACTED]; Path=/; HttpOnly"]]
        ),
        FidelityCase(name: "duplicate and mixed-case fields", method: "GET", target: "/headers"),
        FidelityCase(
            name: "request secrets that also occur in the response",
            method: "POST",
            target: "/secrets?key=date&access_token=tok_abcdef123",
            headers: [
                ("Authorization", "Bearer tok_abcdef123"), ("X-Api-Key", "item"), ("Content-Type", "application/json"),
                ("Referer", "https://app.example.com/page?access_token=tok_abcdef123"),
            ],
            body: #"{"password": "s3cr3t-pass", "pin": "1234"}"#,
            redactedBody: #"{"items": [1, 2], "updated_date": "2026-11-24", "pin_count": 1234, "echo": "Bearer [REDACTED]", "note": "[REDACTED] [REDACTED] [REDACTED]"}"#
        ),
    ]

    /// The request's bytes, closing the connection after the answer.
    func request(target: String, host: String) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.utf8.count)\r\n" }
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8) + Array((body ?? "").utf8)
    }

    /// What a replay must serve for a live answer.
    func redacted(_ live: WireResponse) -> WireResponse {
        var copy = live
        if let redactedBody { copy.body = Array(redactedBody.utf8) }
        var remaining = redactedValues
        copy.fields = live.fields.map { field in
            guard var values = remaining[field.name.lowercased()], !values.isEmpty else { return field }
            defer { remaining[field.name.lowercased()] = values }
            return WireResponse.Field(name: field.name, value: values.removeFirst())
        }
        return copy
    }
}

/// A response as it came over the wire: the status, every field in order, the body de-chunked.
struct WireResponse: Equatable, CustomStringConvertible {
    struct Field: Equatable, CustomStringConvertible {
        let name: String
        let value: String
        var description: String { "\(name): \(value)" }
    }

    var status: Int
    var fields: [Field]
    var body: [UInt8]

    /// Fields that frame one transfer, not the response.
    static let framing: Set<String> = ["content-length", "transfer-encoding", "connection", "keep-alive"]

    var comparedFields: [Field] { fields.filter { !Self.framing.contains($0.name.lowercased()) } }
    var bodyText: String { String(decoding: body, as: UTF8.self) }
    var description: String { "\(status) \(fields) \(bodyText.prefix(300))" }

    /// The response at the start of `bytes`, read to the end of the connection.
    static func parse(_ bytes: [UInt8], method: String) -> WireResponse? {
        guard let headEnd = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let lines = String(decoding: bytes[..<headEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        let fields = lines.dropFirst().compactMap { line -> Field? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return Field(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var rest = Array(bytes[headEnd.upperBound...])
        let chunked = fields.contains { $0.name.lowercased() == "transfer-encoding" && $0.value.lowercased().contains("chunked") }
        if method == "HEAD" || status == 204 || status == 304 {
            rest = []
        } else if chunked {
            var body: [UInt8] = []
            while let lineEnd = rest.firstRange(of: Array("\r\n".utf8)),
                let size = Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";")[0], radix: 16), size > 0,
                rest.count >= lineEnd.upperBound + size
            {
                body += rest[lineEnd.upperBound..<(lineEnd.upperBound + size)]
                rest = Array(rest[(lineEnd.upperBound + size + 2)...])
            }
            rest = body
        } else if let length = fields.first(where: { $0.name.lowercased() == "content-length" }).flatMap({ Int($0.value) }) {
            rest = Array(rest.prefix(length))
        }
        return WireResponse(status: status, fields: fields, body: rest)
    }
}

/// What a URLSession client sees: status, the header dictionary, the (decoded) body.
struct SessionResponse: Equatable, CustomStringConvertible {
    var status: Int
    var fields: [String: String]
    var body: Data
    var host: String

    static let framing: Set<String> = ["content-length", "transfer-encoding", "connection", "keep-alive"]

    var description: String { "\(status) \(fields.sorted { $0.key < $1.key }) \(String(decoding: body, as: UTF8.self).prefix(300))" }

    /// The fields as a session's dictionary can hold them: by name regardless of case (corelibs
    /// keeps `X-Dup` and `x-dup` as two keys, Apple's Foundation one), each name's values as a
    /// set (a dictionary has no order to compare), framing left out.
    var comparedFields: [String: Set<String>] {
        var compared: [String: Set<String>] = [:]
        for (name, value) in fields where !Self.framing.contains(name.lowercased()) {
            compared[name.lowercased(), default: []].formUnion(value.components(separatedBy: ", "))
        }
        return compared
    }

    static func == (lhs: SessionResponse, rhs: SessionResponse) -> Bool {
        lhs.status == rhs.status && lhs.comparedFields == rhs.comparedFields && lhs.body == rhs.body
    }

    static func fetch(_ fidelityCase: FidelityCase, port: Int, session: URLSession, host: String = "127.0.0.1") async throws -> SessionResponse {
        var request = URLRequest(url: try #require(URL(string: "http://\(host):\(port)\(fidelityCase.target)")))
        request.httpMethod = fidelityCase.method
        for (name, value) in fidelityCase.headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = fidelityCase.body.map { Data($0.utf8) }
        request.timeoutInterval = TimeInterval(hangGuard.nanoseconds / 1_000_000_000)
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields["\(name)"] = "\(value)" }
        return SessionResponse(status: http.statusCode, fields: fields, body: data, host: host)
    }

    /// What a replay must give the session for this live answer (a session joins repeated
    /// fields with ", ").
    func redacted(_ fidelityCase: FidelityCase) -> SessionResponse {
        var copy = self
        if let redactedBody = fidelityCase.redactedBody { copy.body = Data(redactedBody.utf8) }
        for (name, values) in fidelityCase.redactedValues {
            guard let key = fields.keys.first(where: { $0.lowercased() == name }) else { continue }
            copy.fields[key] = values.joined(separator: ", ")
        }
        return copy
    }
}
