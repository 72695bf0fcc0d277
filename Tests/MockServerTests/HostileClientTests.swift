import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import NIOCore
import NIOPosix
import Testing

#if canImport(Glibc)
import Glibc
import ProcessSupport
#endif

/// What a careless stub or a hostile local process sends the server, over a real socket: the
/// server answers with a reason or closes, and keeps serving everyone else.
struct HostileClientTests {
    /// A server with `limits`, on the tests' event loops.
    private func withLimitedServer(_ limits: MockServer.ConnectionLimits, _ body: (MockServer) async throws -> Void) async throws {
        try await withServer(HTTPMock(), configuration: .init(limits: limits), body)
    }

    // MARK: Stubs

    @Test func aHugeDelayOrAnInjectedHeaderThroughTheAdminAPIIsRefusedAndServingGoesOn() async throws {
        try await withServer(HTTPMock()) { server in
            server.addResponses(forPath: "/ping", host: "**") { MockResponse.plaintext("pong", lifetime: .eternal) }
            let base = server.baseURL.absoluteString
            try await withClient { client in
                for (response, problem) in [
                    (#"{ "body": "x", "delay": 1e10 }"#, "longer than the limit of 86400 seconds"),
                    (#"{ "body": "x", "dribble": { "chunks": 2, "seconds": 1e10 } }"#, "the dribble's duration"),
                    (#"{ "body": "x", "headers": { "X-A": "b\r\nSet-Cookie: evil=1" } }"#, "contains a carriage return"),
                    (#"{ "body": "x", "headers": { "Bad Name": "v" } }"#, "contains a space"),
                ] {
                    let stub = #"{ "stubs": [ { "path": "/hostile", "responses": [ \#(response) ] } ] }"#
                    let added = try await send(client, "\(base)/__admin/stubs", method: .POST, headers: [("Content-Type", "application/json")], body: stub)
                    #expect(added.status == 400, "\(added.text)")
                    #expect(added.text.contains(problem), "\(added.text)")
                }
                // Before the limit, the first request to a 1e10 s delay crashed the server.
                let hostile = try await send(client, "\(base)/hostile")
                #expect(hostile.status == 404)
                #expect(hostile.headers["Set-Cookie"].isEmpty)
                #expect(try await send(client, "\(base)/ping").text == "pong")
            }
        }
    }

    @Test func aStubHeaderWithCRLFNeverReachesTheWire() async throws {
        try await withServer(HTTPMock()) { server in
            server.addResponses(forPath: "/inject", host: "**") {
                MockResponse.plaintext("x", headers: ["X-A": "b\r\nSet-Cookie: evil=1"])
            }
            #expect(server.registrationErrors.first?.problem.contains("header injection") == true)
            let answer = try await rawExchange(port: server.port, "GET /inject HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
            #expect(answer.hasPrefix("HTTP/1.1 404"), "\(answer)")
            #expect(!answer.contains("Set-Cookie"), "\(answer)")
        }
    }

    @Test func doubleStarsAgainstALongPathAreAnsweredThroughTheSocket() async throws {
        try await withServer(HTTPMock()) { server in
            server.addResponses(forPath: "/**/a/**/a/**/a/z", host: "**") { MockResponse.plaintext("deep", lifetime: .eternal) }
            let long = String(repeating: "/a", count: 2_000)
            try await withClient { client in
                let base = server.baseURL.absoluteString
                let miss = try await send(client, base + long)
                let hit = try await send(client, base + long + "/z")
                #expect(miss.status == 404)
                #expect(hit.text == "deep")
            }
        }
    }

    // MARK: Malformed requests

    @Test(arguments: [
        ("GARBAGE\u{1} \r\n\r\n", "the method is not a valid token"),
        ("GET /x HTTP/1.1\r\nHost: a\r\nBad Header: y\r\n\r\n", "a header name or value contains a character HTTP does not allow"),
        ("GET /x HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n", "Content-Length is not a single non-negative number"),
        ("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "a chunk size of the chunked body is not a hexadecimal number"),
        ("GET /x HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "a", count: 100_000) + "\r\n\r\n", "the request head is too large"),
    ])
    func aRequestTheParserRejectsGetsA400SayingWhy(request: String, reason: String) async throws {
        try await withServer(HTTPMock()) { server in
            let answer = try await rawExchange(port: server.port, request)
            #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(answer.prefix(200))")
            #expect(answer.contains("Connection: close"))
            #expect(answer.contains("Airlock MockServer: bad request: \(reason)"), "\(answer.prefix(400))")
        }
    }

    // MARK: Slow and silent clients

    /// Sends a request head that never ends, a byte every 50 ms (for far longer than any header
    /// timeout of these tests), until cancelled or the connection closes.
    private func trickleAHead(through sender: RawConnection.Sender) -> Task<Void, Never> {
        Task {
            for byte in "GET /x HTTP/1.1\r\nHost: a.test\r\nX-Slow: ".utf8 + Array(repeating: UInt8(ascii: "a"), count: 20_000) {
                guard (try? await sender.send(String(decoding: [byte], as: UTF8.self))) != nil else { return }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    @Test func aClientTricklingItsHeadGets408OnceTheHeaderTimeoutPasses() async throws {
        try await withLimitedServer(.init(headerTimeout: 1, idleTimeout: 600)) { server in
            server.addResponses(forPath: "/x", host: "**") { MockResponse.plaintext("never") }
            try await withRawConnection(to: server) { connection in
                // A byte every 50 ms, for far longer than the timeout: trickling must not reset it.
                let trickle = trickleAHead(through: connection.sender)
                defer { trickle.cancel() }
                let responses = await connection.readResponses(1)
                let response = try #require(responses.first, "no response: \(connection.text) (\(connection.ending?.description ?? "open"))")
                #expect(response.status == 408)
                #expect(response.body.contains("the request head did not arrive within 1 s of its first byte"), "\(response.body)")
                #expect(response.body.contains("--header-timeout"))
                await connection.readToEnd()
                #expect(connection.ending == .closedByServer || connection.ending?.description.contains("reset") == true, "\(connection.ending?.description ?? "open")")
            }
            #expect(server.requests.isEmpty)
        }
    }

    @Test func aKeepAliveConnectionThatServedRequestsStillGets408WhenItsNextHeadTrickles() async throws {
        // The connection's timer waits for the 600 s idle deadline after a response; the next
        // head's 1 s deadline is sooner and must move it.
        try await withLimitedServer(.init(headerTimeout: 1, idleTimeout: 600)) { server in
            server.addResponses(forPath: "/x", host: "**") { MockResponse.plaintext("served", lifetime: .eternal) }
            try await withRawConnection(to: server) { connection in
                try await connection.send("GET /x HTTP/1.1\r\nHost: a.test\r\n\r\nGET /x HTTP/1.1\r\nHost: a.test\r\n\r\n")
                let trickle = trickleAHead(through: connection.sender)
                defer { trickle.cancel() }
                let responses = await connection.readResponses(3)
                #expect(responses.map(\.status) == [200, 200, 408], "\(connection.text.prefix(600))")
                #expect(responses.last?.body.contains("the request head did not arrive within 1 s of its first byte") == true)
            }
            #expect(server.requests.count == 2)
        }
    }

    @Test func aSilentConnectionIsClosedAfterTheIdleTimeout() async throws {
        try await withLimitedServer(.init(headerTimeout: 600, idleTimeout: 1)) { server in
            try await withRawConnection(to: server) { connection in
                await connection.readToEnd()
                #expect(connection.ending == .closedByServer)
                #expect(connection.received.isEmpty)
            }
        }
    }

    // A connection closed at the idle timeout after its responses, and a delayed response that
    // outlives the idle timeout: ServerPipelineTests, with exact time instead of real timers.

    @Test func atTheConnectionLimitTheLongestIdleConnectionMakesRoom() async throws {
        try await withLimitedServer(.init(headerTimeout: 600, idleTimeout: 600, maxConnections: 2)) { server in
            server.addResponses(forPath: "/x", host: "**") { MockResponse.plaintext("ok", lifetime: .eternal) }
            try await withRawConnection(to: server) { oldest in
                // One exchange each, in order: the server has seen both become idle, oldest first.
                try await oldest.send("GET /x HTTP/1.1\r\nHost: a.test\r\n\r\n")
                #expect(await oldest.readResponses(1).first?.status == 200)
                try await withRawConnection(to: server) { newer in
                    try await newer.send("GET /x HTTP/1.1\r\nHost: a.test\r\n\r\n")
                    #expect(await newer.readResponses(1).first?.status == 200)

                    // A third client at the limit of two: the oldest idle connection is closed for it.
                    let third = try await rawExchange(port: server.port, "GET /x HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
                    #expect(third.hasPrefix("HTTP/1.1 200 OK"), "\(third)")
                    await oldest.readToEnd()
                    #expect(oldest.ending == .closedByServer)
                    // The newer one still works.
                    try await newer.send("GET /x HTTP/1.1\r\nHost: a.test\r\n\r\n")
                    #expect(await newer.readResponses(2).count == 2, "\(newer.text)")
                }
            }
        }
    }

    @Test func whenEveryConnectionIsBusyANewClientGets503SayingHowToRaiseTheLimit() async throws {
        try await withLimitedServer(.init(headerTimeout: 600, idleTimeout: 600, maxConnections: 2)) { server in
            try await withRawConnection(to: server) { first in
                try await first.send("GET /x HTTP/1.1\r\n")
                try await withRawConnection(to: server) { second in
                    try await second.send("GET /y HTTP/1.1\r\n")
                    // Both are now reading a head, so neither is idle (a request's first byte ends idleness).
                    try await waitForBusyConnections(server, count: 2)
                    let refused = try await rawExchange(port: server.port, "GET /z HTTP/1.1\r\nHost: a.test\r\n\r\n")
                    #expect(refused.hasPrefix("HTTP/1.1 503 Service Unavailable"), "\(refused)")
                    #expect(refused.contains("2 connections are open and none is idle"), "\(refused)")
                    #expect(refused.contains("--max-connections"))
                    // The busy connections were not touched: both finish their requests.
                    try await first.send("Host: a.test\r\n\r\n")
                    try await second.send("Host: a.test\r\n\r\n")
                    #expect(await first.readResponses(1).first?.status == 404)
                    #expect(await second.readResponses(1).first?.status == 404)
                }
            }
        }
    }

    /// Waits until the server has read the first bytes of requests on `count` connections (a
    /// client's write returns before the server has read it).
    private func waitForBusyConnections(_ server: MockServer, count: Int) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .nanoseconds(hangGuard.nanoseconds)
        while server.busyConnectionCount < count {
            try #require(clock.now < deadline, "the server did not see \(count) requests begin (a hang guard)")
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test func unusableLimitsStopTheServerFromStartingSayingWhy() async throws {
        for (limits, problem) in [
            (MockServer.ConnectionLimits(headerTimeout: -1), "the header timeout -1.0 is not a finite, non-negative number"),
            (MockServer.ConnectionLimits(idleTimeout: .infinity), "the idle timeout inf is not a finite"),
            (MockServer.ConnectionLimits(maxConnections: 0), "the connection limit 0 is not at least 1"),
        ] {
            let server = MockServer(configuration: .init(limits: limits))
            let error = await #expect(throws: MockServerError.self) { try await server.start() }
            #expect(error?.code == .invalidLimits)
            #expect(error?.description.contains(problem) == true, "\(error.map { "\($0)" } ?? "-")")
        }
    }

    // MARK: The CLI

    @Test func airlockServeKeepsServingWhenItsOutputPipeCloses() async throws {
        let path = try #require(CLITests.executable, "build the airlock executable first (swift build)")
        // `airlock serve … | head -2`, as a shell would start it.
        let serve = TestProcess()
        serve.executableURL = URL(fileURLWithPath: path)
        serve.arguments = ["serve", CLITests.packageRoot.appendingPathComponent("Examples/stubs.json").path, "--port", "0"]
        let pipe = Pipe()
        let errors = Pipe()
        serve.standardOutput = pipe
        serve.standardError = errors
        let head = TestProcess()
        head.executableURL = URL(fileURLWithPath: "/usr/bin/head")
        head.arguments = ["-n", "2"]
        head.standardInput = pipe
        let shown = Pipe()
        head.standardOutput = shown
        let served = try ChildProcess(running: serve)
        defer { serve.stop() }
        let headExit = try ChildProcess(running: head)

        let lines = LineReader(shown.fileHandleForReading)
        let banner = try #require(await lines.next(), "airlock printed nothing")
        let base = try #require(banner.range(of: "http://").map { String(banner[$0.lowerBound...]) })
        #expect(await headExit.status() == 0)

        // Each request prints a line into the closed pipe; before, the first one killed airlock.
        try await withClient { client in
            for _ in 0..<3 {
                let users = try await send(client, base + "/users")
                #expect(users.status == 200)
            }
        }
        #expect(serve.isRunning)
        serve.interrupt()
        #expect(await served.status() == 0)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("airlock: standard output cannot be written (Broken pipe); going on without it."), "\(message)")
    }

    @Test func withAnOpenFileLimitOf256ThreeHundredSilentConnectionsDoNotLockANewClientOut() async throws {
        // As a shell would start it after `ulimit -n 256`: the default connection cap is 192.
        let airlock = try LaunchedAirlock(["serve", CLITests.packageRoot.appendingPathComponent("Examples/stubs.json").path, "--port", "0"], shellPrefix: "ulimit -n 256")
        defer { airlock.stopIfRunning() }
        let base = try await airlock.banner().base
        let port = try #require(base.split(separator: ":").last.flatMap { Int($0) }, "\(base)")

        let silent = await HeldConnection.open(300, to: try SocketAddress(ipAddress: "127.0.0.1", port: port), on: testEventLoops, deadline: hangGuard)
        let opened = silent.compactMap { try? $0.get() }
        // Before the cap, the server ran out of descriptors and new clients waited forever.
        let answer = try await rawExchange(port: port, "GET /users HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
        await opened.closeAll()
        #expect(answer.hasPrefix("HTTP/1.1 200 OK"), "\(answer.prefix(300))")
        #expect(answer.contains("Alice"))
        airlock.process.interrupt()
        #expect(await airlock.exit.status() == 0)
    }

    @Test(arguments: [
        (["--max-connections", "0"], "the connection limit 0 is not at least 1"),
        (["--header-timeout", "0"], "the header timeout is 0 seconds"),
        (["--idle-timeout", "1e10"], "the idle timeout 10000000000.0 is longer than the limit"),
        (["--idle-timeout", "nan"], "the idle timeout nan is not a finite"),
        (["--threads", "0"], "--threads 0 is out of range: give 1 to 256"),
        (["--threads", "100000"], "--threads 100000 is out of range"),
    ])
    func airlockServeRejectsUnusableLimitsAsAUsageError(arguments: [String], problem: String) async throws {
        let path = try #require(CLITests.executable, "build the airlock executable first (swift build)")
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["serve", CLITests.packageRoot.appendingPathComponent("Examples/stubs.json").path, "--port", "0"] + arguments
        let errors = Pipe()
        process.standardError = errors
        let exit = try ChildProcess(running: process)
        defer { process.stop() }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(await exit.status() == 64)
        #expect(message.contains(problem), "\(message)")
    }

    #if os(Linux)
    @Test func airlockServeOnOneThreadServesFromThatThreadAndStopsCleanly() async throws {
        let airlock = try LaunchedAirlock(["serve", CLITests.packageRoot.appendingPathComponent("Examples/stubs.json").path, "--port", "0", "--threads", "1", "--quiet"])
        defer { airlock.stopIfRunning() }
        let base = try await airlock.banner().base
        let port = try #require(base.split(separator: ":").last.flatMap { Int($0) }, "\(base)")
        for _ in 0..<3 {
            let answer = try await rawExchange(port: port, "GET /users HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
            #expect(answer.hasPrefix("HTTP/1.1 200 OK") && answer.contains("Alice"), "\(answer.prefix(300))")
        }
        // SwiftNIO names a group's threads NIO-ELT-<group>-#<n>: exactly one serves.
        let tasks = "/proc/\(airlock.process.processIdentifier)/task"
        let names = try FileManager.default.contentsOfDirectory(atPath: tasks).compactMap { task in
            try? String(contentsOfFile: "\(tasks)/\(task)/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(names.filter { $0.hasPrefix("NIO-ELT-") }.count == 1, "\(names)")
        airlock.process.interrupt()
        #expect(await airlock.exit.status() == 0)
        // The group made for --threads is shut down after the server: the last line is printed.
        var last: String?
        while let line = await airlock.lines.next() { last = line }
        #expect(last == "Airlock stopped.")
    }
    #endif

    @Test func airlockServeAppliesTheHeaderTimeoutFromTheCommandLine() async throws {
        let airlock = try LaunchedAirlock(["serve", CLITests.packageRoot.appendingPathComponent("Examples/stubs.json").path, "--port", "0", "--header-timeout", "1"])
        defer { airlock.stopIfRunning() }
        let base = try await airlock.banner().base
        let port = try #require(base.split(separator: ":").last.flatMap { Int($0) }, "\(base)")
        // Half a head, then nothing: after a second the server answers 408 and closes.
        let answer = try await rawExchange(port: port, "GET /users HTTP/1.1\r\nHost: a.test\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 408 Request Timeout"), "\(answer)")
        #expect(answer.contains("within 1 s"))
        airlock.process.interrupt()
        #expect(await airlock.exit.status() == 0)
    }
}
