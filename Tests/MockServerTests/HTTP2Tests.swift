import Foundation
import HTTPMock
import HTTPTypes
import MockServer
import NIOCore
import NIOPosix
import ProcessSupport
import Testing

/// HTTP/2 on the server's plain port (h2c with prior knowledge), beside HTTP/1.1 on the same
/// port, through clients no one here wrote: curl (libcurl with nghttp2) and PyPI's httpx with h2
/// (Tests/Tools/http2_clients.py); and hostile HTTP/2 bytes from a raw socket.
struct HTTP2Tests {
    static let curlPath = "/usr/bin/curl"
    static let curlIsHere = FileManager.default.isExecutableFile(atPath: curlPath)

    /// A mock with a stub that sets a field of its own, a slow one, and one that fails.
    static func mock() -> HTTPMock {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/users", host: "**") {
            MockResponse.plaintext("users over any HTTP", lifetime: .eternal, headers: ["X-Served-By": "airlock", "Connection": "keep-alive"])
        }
        mock.addResponses(forPath: "/slow/*", host: "**") { MockResponse.plaintext("slow", lifetime: .eternal, delivery: .delayed(0.2)) }
        return mock
    }

    // MARK: curl

    @Test(.enabled(if: curlIsHere, "curl is not installed at /usr/bin/curl (Debian: apt-get install curl)"))
    func curlWithPriorKnowledgeAndHTTP1OnTheSamePortGetTheSameStub() async throws {
        let mock = Self.mock()
        try await withServer(mock) { server in
            let base = server.baseURL.absoluteString
            let h2 = try await Self.curl(["--http2-prior-knowledge", "--include", "\(base)/users"])
            #expect(h2.status == 0, "\(h2.errors)")
            let h2Head = h2.output.components(separatedBy: "\r\n\r\n").first ?? ""
            #expect(h2Head.hasPrefix("HTTP/2 200"), "\(h2.output)")
            #expect(h2Head.contains("x-served-by: airlock"), "\(h2Head)")
            #expect(h2Head.contains("content-length: 19"), "\(h2Head)")
            // A connection-specific field is not sent over HTTP/2 (RFC 9113 §8.2.2).
            #expect(!h2Head.lowercased().contains("connection:"), "\(h2Head)")
            #expect(h2.output.hasSuffix("\r\n\r\nusers over any HTTP"))

            let h1 = try await Self.curl(["--http1.1", "--include", "\(base)/users"])
            #expect(h1.status == 0, "\(h1.errors)")
            #expect(h1.output.hasPrefix("HTTP/1.1 200"), "\(h1.output)")
            #expect(h1.output.contains("X-Served-By: airlock"))
            #expect(h1.output.hasSuffix("\r\n\r\nusers over any HTTP"))

            #expect(mock.requests.map(\.httpVersion) == ["HTTP/2", "HTTP/1.1"])
            // The admin API, asked over HTTP/2, says which protocol each request came with.
            let journal = try await Self.curl(["--http2-prior-knowledge", "\(base)/__admin/requests"])
            let requests = try #require(try JSONSerialization.jsonObject(with: Data(journal.output.utf8)) as? [String: Any])["requests"] as? [[String: Any]]
            #expect(requests?.map { $0["httpVersion"] as? String } == ["HTTP/1.1", "HTTP/2"], "\(journal.output)")
            // WireMock's serve event names it `request.protocol`.
            #expect(requests?.map { ($0["request"] as? [String: Any])?["protocol"] as? String } == ["HTTP/1.1", "HTTP/2"], "\(journal.output)")
        }
    }

    /// A response's trailers: the last chunk's fields over HTTP/1.1 (sent chunked, no length), a
    /// closing HEADERS frame over HTTP/2 (curl prints them after the body's head).
    @Test(.enabled(if: curlIsHere, "curl is not installed at /usr/bin/curl (Debian: apt-get install curl)"))
    func trailersFollowTheBodyOnBothProtocols() async throws {
        let mock = HTTPMock()
        var trailers = HTTPFields()
        trailers.append(HTTPField(name: HTTPField.Name("Server-Timing")!, value: "db;dur=53"))
        trailers.append(HTTPField(name: HTTPField.Name("X-Checksum")!, value: "abc"))
        mock.addResponses(forPath: "/report", host: "**") { MockResponse.plaintext("report", lifetime: .eternal).withTrailers(trailers) }
        try await withServer(mock) { server in
            let h1 = try await rawExchange(port: server.port, "GET /report HTTP/1.1\r\nHost: 127.0.0.1\r\nTE: trailers\r\nConnection: close\r\n\r\n")
            let lower = h1.lowercased()
            #expect(lower.contains("transfer-encoding: chunked"), "\(h1)")
            #expect(!lower.contains("content-length"), "\(h1)")
            #expect(h1.hasSuffix("6\r\nreport\r\n0\r\nServer-Timing: db;dur=53\r\nX-Checksum: abc\r\n\r\n"), "\(h1.debugDescription)")

            let h2 = try await Self.curl(["--http2-prior-knowledge", "--include", "\(server.baseURL.absoluteString)/report"])
            #expect(h2.status == 0, "\(h2.errors)")
            #expect(h2.output.hasPrefix("HTTP/2 200"), "\(h2.output)")
            #expect(h2.output.contains("report"), "\(h2.output)")
            #expect(h2.output.contains("server-timing: db;dur=53"), "\(h2.output)")
            #expect(h2.output.contains("x-checksum: abc"), "\(h2.output)")
        }
    }

    /// The pieces of a stream arrive over HTTP/2 no sooner than their pauses allow (lower bounds
    /// only: a loaded machine may deliver late, never early).
    @Test(.enabled(if: curlIsHere, "curl is not installed at /usr/bin/curl (Debian: apt-get install curl)"))
    func serverSentEventsKeepTheirPaceOverHTTP2() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/events", host: "**") {
            MockResponse.events([
                ServerSentEvent("one"),
                ServerSentEvent("two", after: 0.4),
                ServerSentEvent("three", after: 0.4),
            ])
        }
        try await withServer(mock) { server in
            let run = try await Self.curl(["--http2-prior-knowledge", "--no-buffer", "--trace-ascii", "-", "--trace-time", "--output", "/dev/null", "\(server.baseURL.absoluteString)/events"])
            #expect(run.status == 0, "\(run.errors)")
            // Each "<= Recv data" line of the trace is one read of the body; the event's text
            // follows it. Its time is the line's first field (HH:MM:SS.micro). Each event may
            // arrive late on a loaded machine, never before its pauses since the request went out
            // (the pauses count from the response's start: two arrivals may be closer than a
            // pause when the first came late).
            var sent: Double?
            var arrivals: [String: Double] = [:]
            var last: Double?
            for line in run.output.split(separator: "\n") {
                if line.contains("=> Send header"), sent == nil {
                    sent = Self.seconds(ofTraceLine: line)
                } else if line.contains("<= Recv data") {
                    last = Self.seconds(ofTraceLine: line)
                } else if let time = last {
                    // `0000: data: one..` (the line's end shown as dots).
                    for name in ["one", "two", "three"] where line.contains(": data: \(name)..") && arrivals[name] == nil {
                        arrivals[name] = time
                    }
                }
            }
            let start = try #require(sent, "\(run.output)")
            #expect(arrivals["one"] != nil, "\(run.output)")
            let two = try #require(arrivals["two"], "\(run.output)")
            let three = try #require(arrivals["three"], "\(run.output)")
            // Times of day: a run across midnight wraps.
            let since = { (time: Double) in time >= start ? time - start : time + 86_400 - start }
            #expect(since(two) >= 0.39, "\(arrivals), sent at \(start)")
            #expect(since(three) >= 0.79, "\(arrivals), sent at \(start)")
            #expect(mock.requests.first?.httpVersion == "HTTP/2")
        }
    }

    /// A stub miss over HTTP/2: `404` with the near-miss text, as over HTTP/1.1.
    @Test(.enabled(if: curlIsHere, "curl is not installed at /usr/bin/curl (Debian: apt-get install curl)"))
    func aMissOverHTTP2SaysWhichStubWasNearest() async throws {
        try await withServer(Self.mock()) { server in
            let run = try await Self.curl(["--http2-prior-knowledge", "--write-out", "\n%{http_version} %{response_code}", "\(server.baseURL.absoluteString)/user"])
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.hasSuffix("\n2 404"), "\(run.output)")
            #expect(run.output.contains("/users"), "\(run.output)")
        }
    }

    /// Faults on an HTTP/2 stream: the stream is reset (the connection's other streams go on);
    /// random bytes break the whole connection, as on HTTP/1.1. The next request is answered.
    @Test(
        .enabled(if: curlIsHere, "curl is not installed at /usr/bin/curl (Debian: apt-get install curl)"),
        arguments: [
            (MockResponse.Fault.connectionReset, "INTERNAL_ERROR"), (.emptyResponse, ""), (.malformedChunkedBody, "PROTOCOL_ERROR"),
            (.randomBytesThenClose, ""),
        ]
    )
    func aFaultOverHTTP2FailsTheRequestAndTheNextOneIsAnswered(fault: MockResponse.Fault, code: String) async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/flaky", host: "**") {
            MockResponse.fault(fault)
            MockResponse.plaintext("recovered")
        }
        try await withServer(mock) { server in
            let failed = try await Self.curl(["--http2-prior-knowledge", "\(server.baseURL.absoluteString)/flaky"])
            #expect(failed.status != 0, "\(fault) must fail the request: \(failed.output)")
            if !code.isEmpty { #expect(failed.errors.contains(code), "\(failed.errors)") }
            let retry = try await Self.curl(["--http2-prior-knowledge", "\(server.baseURL.absoluteString)/flaky"])
            #expect(retry.status == 0, "\(retry.errors)")
            #expect(retry.output == "recovered")
            #expect(mock.requests.first?.response?.error == "fault \(fault)")
        }
    }

    /// A WebSocket stub asked over HTTP/2 (no RFC 8441 here): `400` saying to connect over HTTP/1.1.
    @Test(.enabled(if: curlIsHere, "curl is not installed at /usr/bin/curl (Debian: apt-get install curl)"))
    func aWebSocketStubOverHTTP2SaysToUseHTTP1() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/chat", host: "**") { MockResponse.webSocket([.send(.text("hi"))]) }
        try await withServer(mock) { server in
            let run = try await Self.curl(["--http2-prior-knowledge", "--write-out", "\n%{http_version} %{response_code}", "\(server.baseURL.absoluteString)/chat"])
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.contains("came over HTTP/2"), "\(run.output)")
            #expect(run.output.hasSuffix("\n2 400"), "\(run.output)")
        }
    }

    // MARK: httpx

    /// httpx with h2 (HTTP/2 only, prior knowledge): the stub, a miss and two slow stubs, at once
    /// as streams of one connection; then the admin API. (curl's `--parallel` would show the same
    /// multiplexing, but Debian's curl 7.88.1 fails its second stream on any server with "Error in
    /// the HTTP2 framing layer", the regression reported as curl/curl#10634.)
    @Test func httpxWithH2GetsTheStubAMissAndTheAdminAPI() async throws {
        let mock = Self.mock()
        try await withServer(mock) { server in
            let base = server.baseURL.absoluteString
            let run = try await ToolScriptRun.run(
                ["get", "--url", "\(base)/users", "--url", "\(base)/nothing-here", "--url", "\(base)/slow/1", "--url", "\(base)/slow/2"],
                script: "http2_clients.py"
            )
            run.expectSuccess()
            let result = try #require(run.resultLine.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
            let responses = try #require(result["responses"] as? [[String: Any]])
            #expect(responses.map { $0["httpVersion"] as? String } == Array(repeating: "HTTP/2", count: 4))
            #expect(responses.map { $0["status"] as? Int } == [200, 404, 200, 200])
            #expect(responses.first?["body"] as? String == "users over any HTTP")
            let fields = (responses.first?["headers"] as? [[String]]) ?? []
            #expect(fields.contains(["x-served-by", "airlock"]), "\(fields)")
            #expect((responses[1]["body"] as? String)?.contains("/users") == true, "\(responses[1])")
            #expect(Set(responses.compactMap { $0["connection"] as? Int }).count == 1, "\(responses)")
            #expect(mock.requests.count == 4)
            #expect(mock.requests.allSatisfy { $0.httpVersion == "HTTP/2" })

            let admin = try await ToolScriptRun.run(["get", "--url", "\(base)/__admin/requests"], script: "http2_clients.py")
            admin.expectSuccess()
            #expect(admin.resultLine?.contains(#"\"httpVersion\" : \"HTTP/2\""#) == true, "\(admin.lines.suffix(5))")
        }
    }

    // MARK: Hostile input

    /// The client preface, then bytes that are no HTTP/2 frame, or a HEADERS frame far over the
    /// frame size the server allows: the server ends the connection with GOAWAY without stalling,
    /// and answers the next connection.
    @Test(arguments: [HostileHTTP2.garbage, .hugeHeaders])
    func hostileHTTP2BytesEndTheConnectionAndTheServerGoesOn(_ hostile: HostileHTTP2) async throws {
        try await withServer(Self.mock()) { server in
            let (ending, received) = try await withRawConnection(to: server, deadline: .seconds(120)) { connection in
                try await connection.send(bytes: HostileHTTP2.preface + HostileHTTP2.emptySettings + hostile.bytes)
                await connection.readToEnd()
                return (connection.ending, connection.received)
            }
            #expect(ending != .timedOut)
            #expect(HostileHTTP2.frameTypes(in: received).contains(0x7), "no GOAWAY in \(received.prefix(64))")
            let answered = try await withRawConnection(to: server) { connection in
                try await connection.send("GET /users HTTP/1.1\r\nHost: localhost\r\n\r\n")
                return await connection.readResponses(1)
            }
            #expect(answered.first?.status == 200)
        }
    }

    /// A connection that stops in the middle of a frame (a HEADERS frame that announces 100 bytes
    /// and brings 10) is closed by the server's idle timeout, not held forever. Whichever comes
    /// first on a loaded machine — the bytes, or the server closing the silent connection — the
    /// server is the one that ends it: only the hang guard's deadline would fail the test.
    @Test func aConnectionCutShortInAFrameIsClosedByTheIdleTimeout() async throws {
        var configuration = MockServer.Configuration()
        configuration.limits = .init(headerTimeout: 1, idleTimeout: 1)
        try await withServer(Self.mock(), configuration: configuration) { server in
            let ending = try await withRawConnection(to: server, deadline: .seconds(120)) { connection -> RawConnection.Ending? in
                do {
                    try await connection.send(bytes: HostileHTTP2.preface + HostileHTTP2.emptySettings + HostileHTTP2.truncatedFrame.bytes)
                } catch is RawConnection.DeadlinePassed {
                    return .timedOut
                } catch {
                    // The server closed the silent connection before the bytes went out.
                    return .closedByServer
                }
                await connection.readToEnd()
                return connection.ending
            }
            #expect(ending != .timedOut)
            #expect(ending != nil)
        }
    }

    // MARK: Helpers

    /// Runs curl quietly (no configuration file of the user's) and returns its exit status and output.
    static func curl(_ arguments: [String]) async throws -> (status: Int32?, output: String, errors: String) {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: curlPath)
        process.arguments = ["--disable", "--silent", "--show-error", "--max-time", "120"] + arguments
        var environment = ProcessInfo.processInfo.environment
        for name in ["http_proxy", "https_proxy", "HTTPS_PROXY", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy", "CURL_CA_BUNDLE", "SSL_CERT_FILE"] {
            environment[name] = nil
        }
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let status = await (try ChildProcess(running: process)).status()
        return (
            status,
            String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        )
    }

    /// The time of a `--trace-time` line (`HH:MM:SS.micro …`), in seconds since midnight.
    static func seconds(ofTraceLine line: Substring) -> Double? {
        let parts = (line.split(separator: " ").first ?? "").split(separator: ":")
        guard parts.count == 3, let hours = Double(parts[0]), let minutes = Double(parts[1]), let seconds = Double(parts[2]) else { return nil }
        return hours * 3600 + minutes * 60 + seconds
    }
}

/// Bytes an HTTP/2 client must never send after its preface.
enum HostileHTTP2: String, CaseIterable, CustomTestStringConvertible {
    case garbage
    case truncatedFrame
    case hugeHeaders

    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    static let emptySettings: [UInt8] = frameHeader(length: 0, type: 0x4, flags: 0, stream: 0)

    var testDescription: String { rawValue }

    var bytes: [UInt8] {
        switch self {
        case .garbage:
            // Looks like a frame header of an unknown huge length and type, then text.
            Array("GET / HTTP/1.1\r\nHost: x\r\n\r\nthis is not HTTP/2 at all".utf8)
        case .truncatedFrame:
            // A HEADERS frame that announces 100 bytes and brings 10, then nothing.
            Self.frameHeader(length: 100, type: 0x1, flags: 0x4, stream: 1) + Array(repeating: 0x00, count: 10)
        case .hugeHeaders:
            // A HEADERS frame of 1 MiB: far over SETTINGS_MAX_FRAME_SIZE (16 KiB by default).
            Self.frameHeader(length: 1 << 20, type: 0x1, flags: 0x4, stream: 1) + Array(repeating: 0x41, count: 1 << 20)
        }
    }

    static func frameHeader(length: Int, type: UInt8, flags: UInt8, stream: UInt32) -> [UInt8] {
        [UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF), type, flags]
            + [UInt8((stream >> 24) & 0x7F), UInt8((stream >> 16) & 0xFF), UInt8((stream >> 8) & 0xFF), UInt8(stream & 0xFF)]
    }

    /// The types of the frames in `bytes` (a server's answer), read one after another.
    static func frameTypes(in bytes: [UInt8]) -> [UInt8] {
        var types: [UInt8] = []
        var index = 0
        while index + 9 <= bytes.count {
            let length = Int(bytes[index]) << 16 | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2])
            types.append(bytes[index + 3])
            index += 9 + length
        }
        return types
    }
}

extension HTTP2Tests {
    /// `airlock record` offers h2 to an `https` upstream for a client that spoke h2, and speaks
    /// HTTP/1.1 when the upstream picks that by ALPN (Python's own server under TLS, its CA given
    /// by `--upstream-ca`); the cassette keeps both sides' protocols: the client's in the request,
    /// the upstream's in the response.
    @Test(.enabled(if: curlIsHere, "curl is not installed at /usr/bin/curl (Debian: apt-get install curl)"))
    func recordingFallsBackToHTTP1WhenTheHTTPSUpstreamPicksIt() async throws {
        let folder = TemporaryFolder("airlock-h1-upstream")
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let (upstream, address) = try await startListeningTool("http2_clients.py", ["serve-http1", "--tls", folder.url.path])
        defer { upstream.stop() }
        let cassette = folder.url.appendingPathComponent("h1.har")
        let recorder = try LaunchedAirlock([
            "record", "--target", "https://\(address)", "--upstream-ca", folder.url.appendingPathComponent("ca.pem").path, "--cassette", cassette.path, "--port", "0", "--quiet",
        ])
        defer { recorder.stopIfRunning() }
        let (banner, _) = try await recorder.banner()
        let base = try #require(banner.components(separatedBy: ": call ").last?.split(separator: " ").first.map(String.init), "\(banner)")
        let answer = try await Self.curl(["--http2-prior-knowledge", "--write-out", "\n%{http_version}", "\(base)/who"])
        #expect(answer.status == 0, "\(answer.errors)")
        // The upstream says what its connection negotiated; the client still got HTTP/2.
        #expect(answer.output == #"{"protocol": "HTTP/1.1", "alpn": "http/1.1"}"# + "\n2")
        #expect(await recorder.interrupt().status == 0)
        let har = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: cassette)) as? [String: Any])
        let entry = try #require(((har["log"] as? [String: Any])?["entries"] as? [[String: Any]])?.first)
        #expect((entry["request"] as? [String: Any])?["httpVersion"] as? String == "HTTP/2")
        #expect((entry["response"] as? [String: Any])?["httpVersion"] as? String == "HTTP/1.1")
        withExtendedLifetime(folder) {}
    }

    /// An `https` upstream that accepts the connection and never answers TLS: the forward that
    /// offered h2 fails at its timeout (60 s) with a `502` saying so, instead of waiting for ever
    /// for ALPN's answer. The wait is a lower bound, never checked as an upper one.
    @Test(.enabled(if: curlIsHere, "curl is not installed at /usr/bin/curl (Debian: apt-get install curl)"))
    func aTLSHandshakeThatNeverEndsFailsTheForwardAtItsTimeout() async throws {
        let silent = try await ServerBootstrap(group: testEventLoops)
            .childChannelInitializer { $0.eventLoop.makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { silent.close(promise: nil) }
        let port = try #require(silent.localAddress?.port)
        let folder = TemporaryFolder("airlock-silent-upstream")
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let recorder = try LaunchedAirlock([
            "record", "--target", "https://127.0.0.1:\(port)", "--cassette", folder.url.appendingPathComponent("never.har").path, "--port", "0", "--quiet",
        ])
        defer { recorder.stopIfRunning() }
        let (banner, _) = try await recorder.banner()
        let base = try #require(banner.components(separatedBy: ": call ").last?.split(separator: " ").first.map(String.init), "\(banner)")
        let started = Date()
        let answer = try await Self.curl(["--http2-prior-knowledge", "--write-out", "\n%{http_code}", "\(base)/never"])
        #expect(answer.status == 0, "\(answer.errors)")
        #expect(answer.output.hasSuffix("\n502"), "\(answer.output)")
        #expect(answer.output.contains("the TLS handshake took longer than 60.0 s"), "\(answer.output)")
        #expect(Date().timeIntervalSince(started) >= 59)
        #expect(await recorder.interrupt().status == 0)
        withExtendedLifetime(folder) {}
    }
}

#if HTTPS
extension HTTP2Tests {
    /// Under TLS, ALPN decides: curl offering h2 gets HTTP/2, curl offering only http/1.1 gets
    /// HTTP/1.1, on the same port; inside a `CONNECT` tunnel, where only HTTP/1.1 is served, a
    /// client offering h2 is kept on HTTP/1.1.
    @Test(.enabled(if: curlIsHere, "curl is not installed at /usr/bin/curl (Debian: apt-get install curl)"))
    func alpnServesH2OrHTTP1AsTheClientOffers() async throws {
        try await TLSTests.withCAFolder { folder in
            try await TLSTests.withTLSServer(caFolder: folder) { server, mock in
                let caFile = try #require(server.certificateAuthority).certificateFile.path
                let url = "\(server.baseURL.absoluteString)/users"
                let h2 = try await Self.curl(["--http2", "--cacert", caFile, "-H", "Host: api.example.test", "--write-out", "\n%{http_version}", url])
                #expect(h2.status == 0, "\(h2.errors)")
                #expect(h2.output == "secure users\n2")
                let h1 = try await Self.curl(["--http1.1", "--cacert", caFile, "-H", "Host: api.example.test", "--write-out", "\n%{http_version}", url])
                #expect(h1.status == 0, "\(h1.errors)")
                #expect(h1.output == "secure users\n1.1")
                let tunnelled = try await Self.curl(
                    ["--http2", "--proxy", "http://127.0.0.1:\(server.port)", "--cacert", caFile, "--write-out", "\n%{http_version}", "https://api.example.test/users"]
                )
                #expect(tunnelled.status == 0, "\(tunnelled.errors)")
                #expect(tunnelled.output == "secure users\n1.1")
                #expect(mock.requests.map(\.httpVersion) == ["HTTP/2", "HTTP/1.1", "HTTP/1.1"])
                #expect(mock.requests.allSatisfy { $0.url.hasPrefix("https://") }, "\(mock.requests.map(\.url))")
            }
        }
    }

    /// httpx with h2 through ALPN, trusting the server's CA.
    @Test func httpxWithH2OverTLS() async throws {
        try await TLSTests.withCAFolder { folder in
            try await TLSTests.withTLSServer(caFolder: folder) { server, mock in
                let caFile = try #require(server.certificateAuthority).certificateFile.path
                let run = try await ToolScriptRun.run(
                    ["get", "--url", "\(server.baseURL.absoluteString)/users", "--tls-ca", caFile],
                    script: "http2_clients.py"
                )
                run.expectSuccess()
                #expect(run.resultLine?.contains(#""httpVersion": "HTTP/2""#) == true, "\(run.lines.suffix(5))")
                #expect(mock.requests.first?.httpVersion == "HTTP/2")
            }
        }
    }

    /// Chromium under TLS, trusting the Airlock CA as a user's browser is told to (an NSS database
    /// of its own; certificate errors stay errors): it picks h2 by ALPN for the page, a `fetch` and
    /// an `EventSource`, whose events come over DATA frames at the stub's pace.
    @Test func chromiumPicksH2ByALPNTrustingTheCA() async throws {
        let page = #"""
            <!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>h2</title><script>
            window.finished = false;
            fetch('/data').then((response) => response.json()).then((answer) => {
              const events = []; const opened = performance.now();
              const source = new EventSource('/events');
              const keep = (event) => events.push({data: event.data, at: performance.now() - opened});
              source.onmessage = keep;
              source.addEventListener('done', (event) => {
                keep(event); source.close();
                window.results = {
                  page: performance.getEntriesByType('navigation')[0].nextHopProtocol,
                  data: performance.getEntriesByName(location.origin + '/data')[0].nextHopProtocol,
                  answer: JSON.stringify(answer), events: JSON.stringify(events)};
                window.finished = true;
              });
            }).catch((error) => { window.results = {error: String(error)}; window.finished = true; });
            </script>
            """#
        let stubs: [String: Any] = ["stubs": [
            ["path": "/page", "responses": [["body": page, "headers": ["Content-Type": "text/html; charset=utf-8"]]]],
            ["path": "/data", "responses": [["json": ["over": "h2"]]]],
            ["path": "/events", "responses": [["events": [
                ["data": "one"], ["data": "two", "delay": 0.3], ["data": "bye", "event": "done", "delay": 0.3],
            ]]]],
        ]]
        let mock = HTTPMock()
        #expect(mock.registerStubs(try StubFile(data: try JSONSerialization.data(withJSONObject: stubs), source: "h2-page.json", baseDirectory: URL(fileURLWithPath: "/"))).isEmpty)
        try await TLSTests.withCAFolder { folder in
            try await withServer(mock, configuration: .init(tls: .init(certificateAuthorityDirectory: folder))) { server in
                let caFile = try #require(server.certificateAuthority).certificateFile.path
                #expect(server.baseURL.scheme == "https")
                let run = try await ToolScriptRun.run(["page-results", "--page", "\(server.baseURL.absoluteString)/page", "--trust-ca", caFile], script: "browser_clients.py")
                run.expectSuccess()
                let result = try #require(run.resultLine.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
                guard let results = result["results"] as? [String: Any] else {
                    // No Chromium or certutil here: the script says so as a finding (CI installs them).
                    #expect(run.findings.contains { $0.contains("Chromium") || $0.contains("certutil") }, "\(run.lines.suffix(20))")
                    return
                }
                #expect(results["error"] == nil, "\(results)")
                #expect(results["page"] as? String == "h2", "\(results)")
                #expect(results["data"] as? String == "h2", "\(results)")
                #expect(results["answer"] as? String == #"{"over":"h2"}"#)
                let events = try #require(try JSONSerialization.jsonObject(with: Data(((results["events"] as? String) ?? "[]").utf8)) as? [[String: Any]])
                #expect(events.map { $0["data"] as? String } == ["one", "two", "bye"])
                let times = events.compactMap { $0["at"] as? Double }
                if times.count == 3 {
                    // Lower bounds from the moment the page opened the source (some slack for timers).
                    #expect(times[1] >= 250, "\(times)")
                    #expect(times[2] >= 550, "\(times)")
                }
                #expect((result["console"] as? [String]) == [], "the page logged errors")
                #expect(mock.requests.map(\.httpVersion) == ["HTTP/2", "HTTP/2", "HTTP/2"], "\(mock.requests.map { String(describing: $0.url) + " " + String(describing: $0.httpVersion) })")
            }
        }
    }

    /// `airlock record` in front of an `https` upstream (this server with TLS on, its CA given by
    /// `--upstream-ca`): a client that spoke h2 to the recorder is forwarded over h2, picked by
    /// ALPN, one that spoke HTTP/1.1 over HTTP/1.1; the cassette keeps each protocol.
    @Test(.enabled(if: curlIsHere, "curl is not installed at /usr/bin/curl (Debian: apt-get install curl)"))
    func recordingForwardsH2ToAnHTTPSUpstreamThatPicksItByALPN() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/users", host: "**") { MockResponse.plaintext(#"{"name":"Ada"}"#, lifetime: .eternal) }
        let folder = TemporaryFolder("airlock-h2-record")
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let cassette = folder.url.appendingPathComponent("h2.har")
        try await withServer(mock, configuration: .init(tls: .init(certificateAuthorityDirectory: folder.url.appendingPathComponent("ca")))) { upstream in
            let caFile = try #require(upstream.certificateAuthority).certificateFile.path
            let recorder = try LaunchedAirlock(["record", "--target", upstream.baseURL.absoluteString, "--upstream-ca", caFile, "--cassette", cassette.path, "--port", "0", "--quiet"])
            defer { recorder.stopIfRunning() }
            let (banner, _) = try await recorder.banner()
            let base = try #require(banner.components(separatedBy: ": call ").last?.split(separator: " ").first.map(String.init), "\(banner)")
            let h2 = try await Self.curl(["--http2-prior-knowledge", "--write-out", "\n%{http_version}", "\(base)/users"])
            #expect(h2.status == 0, "\(h2.errors)")
            #expect(h2.output == #"{"name":"Ada"}"# + "\n2")
            let h1 = try await Self.curl(["--http1.1", "--write-out", "\n%{http_version}", "\(base)/users"])
            #expect(h1.status == 0, "\(h1.errors)")
            #expect(h1.output == #"{"name":"Ada"}"# + "\n1.1")
            #expect(await recorder.interrupt().status == 0)
            #expect(mock.requests.map(\.httpVersion) == ["HTTP/2", "HTTP/1.1"])
            let har = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: cassette)) as? [String: Any])
            let entries = try #require((har["log"] as? [String: Any])?["entries"] as? [[String: Any]])
            #expect(entries.compactMap { ($0["request"] as? [String: Any])?["httpVersion"] as? String } == ["HTTP/2", "HTTP/1.1"])
            #expect(entries.compactMap { ($0["response"] as? [String: Any])?["httpVersion"] as? String } == ["HTTP/2", "HTTP/1.1"])
            #expect(entries.allSatisfy { (($0["request"] as? [String: Any])?["url"] as? String)?.hasPrefix(upstream.baseURL.absoluteString) == true })
        }
        withExtendedLifetime(folder) {}
    }
}
#endif
