import Foundation
import HTTPMock
import MockServer
import ProcessSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Airlock's HAR claims, checked by tools no one here wrote: haralyzer and mitmproxy, driven by
/// `Tests/Tools/har_tools.py` (which installs them into `.build/har-tools` on first use; see
/// `Tests/Tools/README.md`), against the fidelity table and its Python upstream:
///
/// - every HAR Airlock writes — a cassette from `airlock record`, the journal's export — parses
///   with haralyzer and passes a HAR 1.2 field check;
/// - a HAR that mitmproxy recorded from the upstream replays through `airlock serve` as the
///   upstream answered, case by case;
/// - a cassette Airlock recorded loads in mitmproxy, each entry as the exchange Airlock replays.
///
/// A tool that cannot be installed fails the test with pip's message. Differences between the
/// tools that the script knows and checks exactly (its `findings`) do not fail; any other
/// difference does, with what differed.
struct HARToolsTests {
    /// This test's own folder, removed when the test ends.
    private let temporary = TemporaryFolder("airlock-har-tools")
    private var folder: URL { temporary.url }

    @Test func aCassetteRecordedThroughTheReverseProxyIsHAR12ThatHaralyzerReads() async throws {
        let cassette = try await recordCassette(named: "reverse.har")
        let run = try await ToolScriptRun.run(["check", cassette, "--entries", "\(FidelityCase.all.count)"])
        run.expectSuccess()
    }

    @Test func theJournalExportIsHAR12ThatHaralyzerReads() async throws {
        // The upstream's answers, each served by a stub of a MockServer: every kind of body and
        // head goes through the journal, and out through `exportHAR()` (`HTTPArchive.data(redaction:)`).
        var live: [String: WireResponse] = [:]
        try await withFidelityUpstream { upstream in
            live = try await fetchAll(port: upstream) { $0.request(target: $0.target, host: "127.0.0.1:\(upstream)") }
        }
        let mock = HTTPMock()
        for fidelityCase in FidelityCase.all {
            let answer = try #require(live[fidelityCase.name], "\(fidelityCase.name): the upstream did not answer")
            // A header dictionary (fields in order would need HTTPTypes, which this target does
            // not depend on): repeated names joined, which the field check does not mind.
            var headers: [String: String] = [:]
            for field in answer.comparedFields {
                headers[field.name] = headers[field.name].map { "\($0), \(field.value)" } ?? field.value
            }
            mock.addResponses(
                forPath: String(fidelityCase.target.prefix { $0 != "?" }),
                host: "**",
                responses: [MockResponse(data: Data(answer.body), status: .init(code: answer.status), headers: headers)]
            )
        }
        try await withServer(mock) { server in
            let port = try #require(server.baseURL.port)
            let served = try await fetchAll(port: port) { $0.request(target: $0.target, host: "127.0.0.1:\(port)") }
            for fidelityCase in FidelityCase.all {
                #expect(served[fidelityCase.name]?.status == live[fidelityCase.name]?.status, "\(fidelityCase.name): served by the stub")
            }
        }
        #expect(mock.requests.count == FidelityCase.all.count)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("journal.har")
        try mock.exportHAR().write(to: file)
        let run = try await ToolScriptRun.run(["check", file.path, "--entries", "\(FidelityCase.all.count)"])
        run.expectSuccess()
    }

    @Test func aHARThatMitmproxyRecordedReplaysThroughAirlockAsTheUpstreamAnswered() async throws {
        let airlock = try #require(CLITests.executable, "build the airlock executable first (swift build)")
        let cases = try writeCases()
        let workdir = folder.appendingPathComponent("mitm-replay")
        try await withFidelityUpstream { upstream in
            // The upstream directly, then through `mitmdump --mode reverse:…` with its HAR dump,
            // then `airlock serve` on that HAR: status, fields in order and body compared.
            let run = try await ToolScriptRun.run([
                "mitm-replay", "--upstream", "\(upstream)", "--airlock", airlock, "--cases", cases, "--workdir", workdir.path,
            ])
            run.expectSuccess()
        }
        // The field check accepts the HAR of a tool no one here wrote, too.
        let check = try await ToolScriptRun.run(["check", workdir.appendingPathComponent("mitm.har").path, "--entries", "\(FidelityCase.all.count)"])
        check.expectSuccess()
    }

    @Test func anAirlockCassetteLoadsInMitmproxyAsTheExchangesAirlockReplays() async throws {
        let cassette = try await recordCassette(named: "for-mitmproxy.har")
        // What Airlock itself replays from the cassette, case by case, is what each of
        // mitmproxy's flows must be (the script also compares each flow with its HAR entry).
        let server = try LaunchedAirlock(["serve", cassette, "--port", "0", "--quiet"])
        defer { server.stopIfRunning() }
        let banner = try #require(await server.lines.next(), "airlock serve printed nothing")
        let port = try lastPort(in: banner)
        let replayed = try await fetchAll(port: port) { $0.request(target: $0.target, host: "127.0.0.1:\(port)") }
        server.process.interrupt()
        #expect(await server.exit.status() == 0)
        var expected: [[String: Any]] = []
        for fidelityCase in FidelityCase.all {
            let answer = try #require(replayed[fidelityCase.name])
            expected.append([
                "name": fidelityCase.name,
                "method": fidelityCase.method,
                "target": fidelityCase.target,
                "status": answer.status,
                "fields": answer.fields.map { [$0.name, $0.value] },
                "body_base64": Data(answer.body).base64EncodedString(),
            ])
        }
        let file = folder.appendingPathComponent("expected.json")
        try JSONSerialization.data(withJSONObject: ["entries": expected]).write(to: file)
        let run = try await ToolScriptRun.run(["mitm-load", cassette, "--expect-json", file.path])
        run.expectSuccess()
    }

    // MARK: Helpers

    /// Records the fidelity table through `airlock record --target` into `name` in the test's
    /// folder, and returns the cassette's path.
    private func recordCassette(named name: String) async throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let cassette = folder.appendingPathComponent(name).path
        try await withFidelityUpstream { upstream in
            let recorder = try LaunchedAirlock(["record", "--target", "http://127.0.0.1:\(upstream)", "--cassette", cassette, "--port", "0", "--quiet"])
            defer { recorder.stopIfRunning() }
            let banner = try #require(await recorder.lines.next(), "airlock record printed nothing")
            let port = try lastPort(in: banner)
            let relayed = try await fetchAll(port: port) { $0.request(target: $0.target, host: "127.0.0.1:\(port)") }
            #expect(relayed.count == FidelityCase.all.count)
            recorder.process.interrupt()
            #expect(await recorder.exit.status() == 0)
        }
        return cassette
    }

    /// The fidelity table as the script reads it: `[{name, method, target, headers, body}]`.
    private func writeCases() throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let cases: [[String: Any]] = FidelityCase.all.map { fidelityCase in
            var entry: [String: Any] = [
                "name": fidelityCase.name,
                "method": fidelityCase.method,
                "target": fidelityCase.target,
                "headers": fidelityCase.headers.map { [$0.0, $0.1] },
            ]
            if let body = fidelityCase.body { entry["body"] = body }
            return entry
        }
        let file = folder.appendingPathComponent("cases.json")
        try JSONSerialization.data(withJSONObject: cases).write(to: file)
        return file.path
    }
}

/// One run of a script of `Tests/Tools` (`har_tools.py`, `wiremock_client.py`, `contract_tools.py`) as a child
/// process: every line it printed, its exit status and its closing JSON line (`{"ok": …,
/// "problems": […], "findings": […], …}`).
struct ToolScriptRun: Sendable {
    let script: String
    let arguments: [String]
    let lines: [String]
    /// `nil` when the child had to be killed (an issue is recorded then).
    let status: Int32?
    let ok: Bool
    let problems: [String]
    let findings: [String]
    /// The closing JSON line as printed, for results beyond `ok`, `problems` and `findings`.
    let resultLine: String?

    static let tools = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Tools")

    /// Runs `python3 <script> <arguments>` (the script installs its tools, or reuses them, and
    /// runs itself again in their virtual environment) and reads its output to the end.
    static func run(_ arguments: [String], script name: String = "har_tools.py") async throws -> ToolScriptRun {
        let script = tools.appendingPathComponent(name)
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + arguments
        // The script may install its tools from PyPI: the one place this suite reaches past
        // loopback, on purpose. Like every TestProcess, it starts without the Airgap guard that
        // Airgap's suites, running in this process at the same time, hand to children.
        let output = Pipe()
        process.standardOutput = output
        let exit = try ChildProcess(running: process)
        defer { process.stop() }
        let reader = LineReader(output.fileHandleForReading)
        // The script prints a line at least every 15 s while it works (pip included). `next()`
        // is nil at the end of its output, or after `hangGuard` without a line: then the wait
        // below kills it and records an issue (a hang guard, not a performance limit).
        var lines: [String] = []
        while let line = await reader.next() {
            lines.append(line)
        }
        let status = await exit.status()
        let resultLine = lines.last { $0.hasPrefix("{") }
        let result = resultLine.flatMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
        return ToolScriptRun(
            script: name,
            arguments: arguments,
            lines: lines,
            status: status,
            ok: result?["ok"] as? Bool ?? false,
            problems: result?["problems"] as? [String] ?? ["\(name) printed no result line"],
            findings: result?["findings"] as? [String] ?? [],
            resultLine: resultLine
        )
    }

    /// Expects exit status 0 and `"ok": true`; otherwise the problems and the last lines printed.
    func expectSuccess(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            status == 0 && ok,
            """
            \(script) \(arguments.joined(separator: " ")) exited with \(status.map { "\($0)" } ?? "nothing (killed)"):
            \(problems.joined(separator: "\n"))
            --- its last lines ---
            \(lines.suffix(60).joined(separator: "\n"))
            """,
            sourceLocation: sourceLocation
        )
    }
}
