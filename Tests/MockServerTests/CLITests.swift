import AsyncHTTPClient
import Foundation
import HTTPMock
import Testing

#if canImport(Glibc)
import Glibc
import ProcessSupport
#endif

/// The `airlock` executable, run as a child process.
struct CLITests {
    /// `airlock`, next to the test binary or in this package's build folder.
    static let executable: String? = {
        var candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(), Bundle.main.bundleURL.deletingLastPathComponent()]
        candidates.append(packageRoot.appendingPathComponent(".build/debug"))
        return candidates.map { $0.appendingPathComponent("airlock").path }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func servesAStubFileLogsRequestsAndStopsOnInterrupt() async throws {
        let airlock = try LaunchedAirlock(["serve", Self.packageRoot.appendingPathComponent("Examples/stubs.json").path, "--port", "0"])
        defer { airlock.stopIfRunning() }
        let (process, exit, lines) = (airlock.process, airlock.exit, airlock.lines)
        let (banner, base) = try await airlock.banner()
        #expect(banner.hasPrefix("Airlock serving 7 stub(s) from "))
        _ = await lines.next()

        try await withClient { client in
            let users = try await send(client, "\(base)/users")
            #expect(users.status == 200 && users.text.contains("Alice"))
            #expect(try await send(client, "\(base)/missing").status == 404)
        }
        let first = try #require(await lines.next())
        #expect(first.hasPrefix("GET /users → 200 ("))
        let second = try #require(await lines.next())
        #expect(second.hasPrefix("GET /missing → 404 ("))

        process.interrupt()
        #expect(await exit.status() == 0)
        #expect(await lines.next() == "Airlock stopped.")
    }

    /// A HAR file with one recorded `GET /status` → 200 "up", in a fresh temporary folder.
    private func oneEntryCassette() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("status.har")
        try Data(
            #"""
            {"log": {"version": "1.2", "creator": {"name": "x", "version": "1"}, "entries": [{"startedDateTime": "2026-11-22T10:00:00Z", "time": 1,
              "request": {"method": "GET", "url": "https://api.example.com/status"},
              "response": {"status": 200, "content": {"size": 2, "mimeType": "text/plain", "text": "up"}}}]}}
            """#.utf8
        ).write(to: file)
        return file
    }

    @Test func servingAHARFileReplaysEachResponseOnceAndSaysSo() async throws {
        let file = try oneEntryCassette()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let airlock = try LaunchedAirlock(["serve", file.path, "--port", "0", "--quiet"])
        defer { airlock.stopIfRunning() }
        let (banner, base) = try await airlock.banner()
        #expect(banner.hasPrefix("Airlock serving 1 recorded exchange(s) from "))
        #expect(await airlock.lines.next() == "Replay: each recorded response answers once, in order; one request more gets 502 (Airlock-Error: replay-miss). --repeat-last keeps answering with the last.")

        try await withClient { client in
            let first = try await send(client, "\(base)/status")
            #expect(first.status == 200 && first.text == "up")
            let second = try await send(client, "\(base)/status")
            #expect(second.status == 502)
            #expect(second.headers["Airlock-Error"] == ["replay-miss"])
            #expect(second.text.contains("Airlock: no stub for GET "), "\(second.text)")
            #expect(second.text.contains("used up (served 1)"), "\(second.text)")
            #expect(second.text.contains("To record it: airlock record --target <origin> --cassette \(file.path) --mode newEpisodes"), "\(second.text)")
        }
        airlock.process.interrupt()
        #expect(await airlock.exit.status() == 0)
    }

    @Test func repeatLastKeepsAnsweringWithTheLastRecordedResponse() async throws {
        let file = try oneEntryCassette()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let airlock = try LaunchedAirlock(["serve", file.path, "--port", "0", "--quiet", "--repeat-last"])
        defer { airlock.stopIfRunning() }
        let base = try await airlock.banner().base
        #expect(await airlock.lines.next() == "Replay: each request's recorded responses in order, then the last one again and again (--repeat-last); an unrecorded request gets 502 (Airlock-Error: replay-miss).")

        try await withClient { client in
            for _ in 0..<3 {
                let answer = try await send(client, "\(base)/status")
                #expect(answer.status == 200 && answer.text == "up")
            }
            // Repeating is not matching more: a request never recorded is still a miss.
            let unrecorded = try await send(client, "\(base)/other")
            #expect(unrecorded.status == 502)
            #expect(unrecorded.headers["Airlock-Error"] == ["replay-miss"])
        }
        airlock.process.interrupt()
        #expect(await airlock.exit.status() == 0)
    }

    @Test func repeatLastOnAStubFileIsAUsageError() throws {
        let (status, errors) = try run(["serve", Self.packageRoot.appendingPathComponent("Examples/stubs.json").path, "--port", "0", "--repeat-last"])
        #expect(status == 64)
        #expect(errors.contains("--repeat-last applies to a HAR file"), "\(errors)")
        #expect(errors.contains(#""lifetime": "eternal""#), "\(errors)")
    }

    #if !HTTPS
    // Without the package's HTTPS trait (the default), HTTPS says what to turn on; with it,
    // TLSTests and TLSCLITests serve HTTPS (`swift test --traits HTTPS`).
    @Test(arguments: [["serve", "--tls"], ["record", "--tls", "--cassette", "/tmp/airlock-never-written.har"], ["ca", "export"]])
    func httpsWithoutTheTraitExitsUnavailableSayingHowToTurnItOn(_ arguments: [String]) throws {
        let stubs = Self.packageRoot.appendingPathComponent("Examples/stubs.json").path
        let command = arguments.first == "serve" ? ["serve", stubs, "--port", "0"] + arguments.dropFirst() : arguments + (arguments.first == "record" ? ["--port", "0"] : [])
        let (status, errors) = try run(command)
        #expect(status == 69, "\(errors)")
        #expect(errors.contains("HTTPS needs the Airlock package's HTTPS trait, which this build was made without."), "\(errors)")
        #expect(errors.contains(#".package(path: "../Airlock", traits: ["HTTPS"])"#), "\(errors)")
        #expect(errors.contains("swift run --traits HTTPS airlock"), "\(errors)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/airlock-never-written.har"))
    }
    #endif

    /// Runs `airlock` with `arguments` to completion; returns its exit status and standard error.
    private func run(_ arguments: [String]) throws -> (status: Int32, errors: String) {
        let path = try #require(Self.executable, "build the airlock executable first (swift build)")
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test func versionPrintsTheVersion() throws {
        let path = try #require(Self.executable, "build the airlock executable first (swift build)")
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["--version"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == AirlockVersion.current)
    }

    @Test func aPortInUseExitsUnavailableSayingHowToFixIt() async throws {
        try await withServer(HTTPMock()) { server in
            let (status, errors) = try run(["serve", Self.packageRoot.appendingPathComponent("Examples/stubs.json").path, "--port", "\(server.port)"])
            #expect(status == 69)
            #expect(errors.contains("another process is using the port"), "\(errors)")
            #expect(errors.contains("--port 0"), "\(errors)")
        }
    }

    @Test(arguments: ["serve", "record"])
    func anUpstreamCAFileThatCannotBeReadIsBadInputNamingIt(_ command: String) throws {
        let cassette = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-never-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: cassette) }
        let source = command == "serve" ? [Self.packageRoot.appendingPathComponent("Examples/stubs.json").path] : ["--cassette", cassette.path]
        let (status, errors) = try run([command] + source + ["--upstream-ca", "/no/such/ca.pem", "--port", "0"])
        #expect(status == 65)
        #expect(errors.contains("cannot trust the certificates of /no/such/ca.pem for upstreams: it cannot be read"), "\(errors)")
        #expect(errors.contains("airlock --upstream-ca"), "\(errors)")
    }

    @Test func bindingBeyondLoopbackWithoutTheFlagIsAUsageError() throws {
        let (status, errors) = try run(["serve", Self.packageRoot.appendingPathComponent("Examples/stubs.json").path, "--host", "0.0.0.0", "--port", "0"])
        #expect(status == 64)
        #expect(errors.contains("--allow-remote"), "\(errors)")
    }

    @Test(arguments: [
        ("{\n  \"stubs\": [\n    { \"path\": \"/x\" \"responses\": [] }\n  ]\n}", "line 3, column"),
        (#"{"stubs": [{"path": "/x", "responses": [{"status": "ok"}]}]}"#, "stubs[0].responses[0].status: has the wrong type; expected an integer"),
        (#"{"stubs": [{"responses": [{"body": "x"}]}]}"#, "stubs[0].path: is missing; expected a \"path\" field"),
        (#"{"stubs": [{"path": "users", "responses": [{"body": "x"}]}]}"#, #"stubs[0].path: the path "users" does not start with "/""#),
        (#"{"stubs": [{"path": "/x", "responses": [{"fault": "explode"}]}]}"#, #"stubs[0].responses[0].fault: is "explode"; expected "connectionReset""#),
        (#"{"stubs": [{"path": "/x", "responses": [{"statusCode": 404}]}]}"#, #"stubs[0].responses[0].statusCode: is not a field of a response; did you mean "status"?"#),
        (#"{"stubs": [{"path": "/x", "metod": "GET", "responses": [{}]}]}"#, #"stubs[0].metod: is not a field of a stub; did you mean "method"?"#),
        (#"{"stub": []}"#, #"stub: is not a field of the top level; did you mean "stubs"?"#),
        (#"{"stubs": [{"path": "/x", "responses": [{"file": "no-such-file.json"}]}]}"#, #"stubs[0].responses[0].file: "no-such-file.json" does not exist"#),
        (#"{"stubs": [{"path": "/x", "responses": [{"file": "/tmp"}]}]}"#, #"stubs[0].responses[0].file: "/tmp" is a folder"#),
        (#"{"stubs": [{"host": "api.example.com/v1", "path": "/x", "responses": [{}]}]}"#, #"put the path in "path""#),
    ])
    func aMalformedStubFileExitsNonZeroNamingTheProblem(contents: String, expected: String) async throws {
        let path = try #require(Self.executable, "build the airlock executable first (swift build)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-bad-\(UUID().uuidString).json")
        try Data(contents.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["serve", file.path, "--port", "0"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        let status = await (try ChildProcess(running: process)).status()
        // The child has exited: reading its (short) error output to the end returns at once.
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(status != nil && status != 0)
        #expect(message.hasPrefix("airlock: \(file.path), "), "\(message)")
        #expect(message.contains(expected), "\(message)")
    }
}

/// `airlock serve` (or another subcommand that prints a base URL) running as a child, its output
/// read line by line; the caller stops it (and `deinit`-free cleanup is the caller's `defer`).
struct LaunchedAirlock {
    let process: TestProcess
    let exit: ChildProcess
    let lines: LineReader

    /// Starts `airlock` with `arguments`, standard output to a pipe read by ``lines``; with
    /// `shellPrefix`, through `/bin/sh -c "<prefix> && exec airlock …"` (`ulimit -n 256`, say).
    /// `serve` and `record` get `--exit-with-parent`: a test run that crashes or is killed leaves
    /// no server behind. `environment` is added to the test process's own.
    init(_ arguments: [String], shellPrefix: String? = nil, standardError: Pipe? = nil, environment: [String: String] = [:]) throws {
        let path = try #require(CLITests.executable, "build the airlock executable first (swift build)")
        var arguments = arguments
        if ["serve", "record"].contains(arguments.first), !arguments.contains("--exit-with-parent") {
            arguments.append("--exit-with-parent")
        }
        process = TestProcess()
        if let shellPrefix {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", shellPrefix + #" && exec "$0" "$@""#, path] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
        }
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let output = Pipe()
        process.standardOutput = output
        if let standardError { process.standardError = standardError }
        exit = try ChildProcess(running: process)
        lines = LineReader(output.fileHandleForReading)
    }

    /// The first line, and the base URL in it (`http://…`, or `https://…` for that scheme).
    func banner(scheme: String = "http") async throws -> (line: String, base: String) {
        let banner = try #require(await lines.next(), "airlock printed nothing")
        let start = try #require(banner.range(of: "\(scheme)://"), "\(banner)")
        return (banner, String(banner[start.lowerBound...].prefix { !$0.isWhitespace }))
    }

    /// Stops the child as Ctrl-C does and waits for it: its exit status (`nil` when it had to be
    /// killed), and the lines it printed after those already read (a recorder's summary).
    func interrupt(sourceLocation: SourceLocation = #_sourceLocation) async -> (status: Int32?, printed: [String]) {
        process.interrupt()
        let status = await exit.status(sourceLocation: sourceLocation)
        var printed: [String] = []
        while let line = await lines.next() { printed.append(line) }
        return (status, printed)
    }

    /// Stops the child if a test left it running, and waits for it to end.
    func stopIfRunning() {
        process.stop()
    }

    /// Runs `airlock` (or `executable`, another of this package's executables beside it) to
    /// completion; returns its exit status, output and errors. `environment`, when given, replaces
    /// the test process's own.
    static func run(_ arguments: [String], executable: String = "airlock", environment: [String: String]? = nil) throws -> (status: Int32, output: String, errors: String) {
        let airlock = try #require(CLITests.executable, "build the executables first (swift build)")
        let path = URL(fileURLWithPath: airlock).deletingLastPathComponent().appendingPathComponent(executable).path
        try #require(FileManager.default.isExecutableFile(atPath: path), "build the \(executable) executable first (swift build)")
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputText = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, outputText, errorText)
    }
}

/// Reads a child's output line by line without blocking the cooperative pool.
final class LineReader: Sendable {
    private let lines: AsyncStream<String>
    private let iterator: IteratorBox

    init(_ handle: FileHandle) {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        lines = stream
        iterator = IteratorBox(stream.makeAsyncIterator())
        Thread.detachNewThread {
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    continuation.yield(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
            }
            continuation.finish()
        }
    }

    /// The next line, or `nil` at the end or after ``hangGuard`` (a hang guard, not a
    /// performance limit: the test then fails on the missing line).
    func next() async -> String? {
        await withTaskGroup(of: String?.self) { group in
            group.addTask { await self.iterator.next() }
            group.addTask {
                try? await Task.sleep(for: .nanoseconds(hangGuard.nanoseconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    final class IteratorBox: @unchecked Sendable {
        // @unchecked Sendable: the iterator is only advanced by one `next()` at a time (tests
        // read lines in order), guarded by `lock` besides.
        private var iterator: AsyncStream<String>.Iterator
        private let lock = NSLock()

        init(_ iterator: AsyncStream<String>.Iterator) {
            self.iterator = iterator
        }

        func next() async -> String? {
            var copy = lock.withLock { iterator }
            let line = await copy.next()
            lock.withLock { iterator = copy }
            return line
        }
    }
}

/// A started child process whose exit a test awaits without blocking a thread of the cooperative
/// pool, and without end: after ``hangGuard`` the child is killed and the wait records an issue.
final class ChildProcess: Sendable {
    // TestProcess is Sendable: its state after `run()` is read under its own lock.
    private let process: TestProcess

    /// Runs `process`.
    init(running process: TestProcess) throws {
        self.process = process
        // A child holding the test process's own output keeps `swift test` reading it after the
        // test process is gone (a crash would then look like a hang); give it its own.
        if (process.standardInput as? FileHandle)?.fileDescriptor == STDIN_FILENO { process.standardInput = FileHandle.nullDevice }
        if (process.standardOutput as? FileHandle)?.fileDescriptor == STDOUT_FILENO { process.standardOutput = FileHandle.nullDevice }
        if (process.standardError as? FileHandle)?.fileDescriptor == STDERR_FILENO { process.standardError = FileHandle.nullDevice }
        try process.run()
    }

    /// The exit status, or `nil` (with an issue recorded) when the child had to be killed.
    func status(sourceLocation: SourceLocation = #_sourceLocation) async -> Int32? {
        let identifier = process.processIdentifier
        let watchdog = Task { [process] in
            try? await Task.sleep(for: .nanoseconds(hangGuard.nanoseconds))
            guard !Task.isCancelled, process.isRunning else { return false }
            kill(identifier, SIGKILL)
            return true
        }
        let status = await process.exitStatus()
        watchdog.cancel()
        guard await watchdog.value == false else {
            Issue.record("\(process.executableURL?.lastPathComponent ?? "the child") did not exit within \(hangGuard) and was killed (a hang guard, not a performance limit)", sourceLocation: sourceLocation)
            return nil
        }
        return status
    }
}
