import Airgap
import Foundation
import ProcessSupport
import Testing

/// Scenarios that need a fresh process, run through the `AirgapProbe` executable: whole-run
/// mode (`AIRGAP_MODE` at start-up), `URLSession.shared` before its first use, and blocking
/// 127.0.0.1 (which other tests in this process use).
@Suite(.aloneAmongGuardedTests)
struct ChildProcessTests {
    private func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("airgap-\(UUID().uuidString)-\(name)").path
    }

    @Test func wholeRunFailModeCatchesEveryClientAndWritesTheJSONReportAtExit() async throws {
        let report = temporaryPath("whole-run.json")
        defer { try? FileManager.default.removeItem(atPath: report) }
        try await HelloServer.with { server in
            let output = try await Probe.run(
                [
                    "status",
                    "connect=\(server.authority)",
                    "nio=\(server.authority)",
                    "resolve=airgap-resolve.invalid",
                    "shared=http://airgap-shared.invalid/a",
                    "default=http://airgap-default.invalid/b",
                    "ephemeral=http://airgap-ephemeral.invalid/c",
                    "data=http://airgap-data.invalid/d",
                    "nio=airgap-nio.invalid:443",
                ],
                environment: ["AIRGAP_MODE": "fail", "AIRGAP_REPORT_PATH": report]
            )
            // A violation in whole-run fail mode fails the run.
            #expect(output.status == 1, "\(output)")
            #expect(output.standardError.contains("Airgap: failing the run because AIRGAP_MODE is fail"), "\(output)")
            #expect(output.result("status")?.hasPrefix("active=true wholeRun=true mode=fail") == true, "\(output)")
            #expect(output.result("connect=") == "ECONNREFUSED", "\(output)")
            #expect(output.result("nio=127")?.hasPrefix("error:") == true, "\(output)")
            #expect(output.result("resolve=") == "EAI_NONAME", "\(output)")
            // Activated at load time, before URLSession.shared's first use: the URL layer answers.
            #expect(output.result("shared=") == "urlerror:-1009", "\(output)")
            #expect(output.result("default=") == "urlerror:-1003", "\(output)")
            #expect(output.result("ephemeral=") == "urlerror:-1003", "\(output)")
            #expect(output.result("data=") == "error", "\(output)")
            #expect(output.result("nio=airgap")?.hasPrefix("error:") == true, "\(output)")

            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let violations = try decoder.decode([Violation].self, from: Data(contentsOf: URL(fileURLWithPath: report)))
            #expect(violations.map(\.url) == [
                "tcp://\(server.authority)",
                "tcp://\(server.authority)",
                "dns://airgap-resolve.invalid:80",
                "http://airgap-shared.invalid/a",
                "dns://airgap-default.invalid:80",
                "dns://airgap-ephemeral.invalid:80",
                "dns://airgap-data.invalid:80",
                "dns://airgap-nio.invalid:443",
            ])
            #expect(violations.allSatisfy { $0.callStack.count <= 10 })
            #expect(output.standardError.contains("Airgap: 8 violation(s) detected across 1 test(s)"), "\(output)")
        }
    }

    @Test func wholeRunFailModeWithoutViolationsExitsZeroAndWritesNoReport() async throws {
        let report = temporaryPath("no-violations.json")
        defer { try? FileManager.default.removeItem(atPath: report) }
        let output = try await Probe.run(["status", "unix"], environment: ["AIRGAP_MODE": "fail", "AIRGAP_REPORT_PATH": report])
        #expect(output.result("status")?.hasPrefix("active=true wholeRun=true mode=fail") == true, "\(output)")
        #expect(output.status == 0, "\(output)")
        #expect(!output.standardError.contains("failing the run"), "\(output)")
        // No violations leave no report (as in swift-airgap).
        #expect(!FileManager.default.fileExists(atPath: report), "\(output)")
    }

    @Test func wholeRunWarnModeBlocksReportsAndWritesTheTextReport() async throws {
        let report = temporaryPath("whole-run.txt")
        defer { try? FileManager.default.removeItem(atPath: report) }
        try await HelloServer.with { server in
            let output = try await Probe.run(
                ["status", "connect=\(server.authority)", "ephemeral=\(server.url())"],
                environment: ["AIRGAP_MODE": "warn", "AIRGAP_REPORT_PATH": report]
            )
            #expect(output.result("status")?.hasPrefix("active=true wholeRun=true mode=warn") == true, "\(output)")
            // Blocked in warn mode too: only the reporting differs, and the run does not fail.
            #expect(output.result("connect=") == "ECONNREFUSED", "\(output)")
            #expect(output.result("ephemeral=") == "urlerror:\(URLError.Code.cannotConnectToHost.rawValue)", "\(output)")
            #expect(output.status == 0, "\(output)")
            #expect(output.standardError.contains("warning: Airgap: Blocked connection to tcp://\(server.authority)."), "\(output)")
            let text = try String(contentsOfFile: report, encoding: .utf8)
            #expect(text.hasPrefix("Airgap Violation Report\nGenerated: "))
            #expect(text.contains("Total violations: 2\n\n---\nTest: <unknown test>\nMethod: CONNECT\nURL: tcp://\(server.authority)\nCall Stack:\n  connect + "))
        }
    }

    @Test func wholeRunReadsAllowedHostsAndErrorCodeFromTheEnvironment() async throws {
        try await HelloServer.with { server in
            let output = try await Probe.run(
                ["status", "connect=\(server.authority)", "shared=http://airgap-code.invalid/", "violations"],
                environment: ["AIRGAP_MODE": "fail", "AIRGAP_ALLOWED_HOSTS": "127.0.0.0/8, *.mock.test", "AIRGAP_ERROR_CODE": "-1001"]
            )
            #expect(output.result("status")?.contains(#"allowed=["*.mock.test", "127.0.0.0/8"]"#) == true, "\(output)")
            #expect(output.result("connect=") == "ok", "\(output)")
            #expect(output.result("shared=") == "urlerror:-1001", "\(output)")
            #expect(output.result("violations") == "1 [GET http://airgap-code.invalid/]", "\(output)")
        }
    }

    @Test func withoutAirgapModeNothingIsActive() async throws {
        try await HelloServer.with { server in
            let output = try await Probe.run(["status", "connect=\(server.authority)"])
            #expect(output.result("status")?.hasPrefix("active=false wholeRun=false") == true, "\(output)")
            #expect(output.result("connect=") == "ok", "\(output)")
        }
    }

    @Test func localhostAllowsItsLoopbackAddressesEvenToClientsThatResolveItThemselves() async throws {
        try await HelloServer.with(host: "127.0.0.1") { server in
            let output = try await Probe.run([
                "allow=localhost", "activate",
                "connect=127.0.0.1:\(server.port)",
                // libcurl resolves "localhost" itself: the guard never sees the lookup.
                "default=http://localhost:\(server.port)/",
                "shared=http://localhost:\(server.port)/",
                "connect=127.0.0.2:\(server.port)",
                "violations",
            ])
            #expect(output.result("connect=127.0.0.1") == "ok", "\(output)")
            #expect(output.result("default=") == "ok:200", "\(output)")
            #expect(output.result("shared=") == "ok:200", "\(output)")
            // Only 127.0.0.1 and ::1: the rest of 127.0.0.0/8 is not "localhost".
            #expect(output.result("connect=127.0.0.2") == "ECONNREFUSED", "\(output)")
            #expect(output.result("violations") == "1 [CONNECT tcp://127.0.0.2:\(server.port)]", "\(output)")
        }
    }

    @Test func anAllowanceEndsWithTheScopeThatGaveIt() async throws {
        try await HelloServer.with(host: "127.0.0.1") { server in
            let output = try await Probe.run([
                "activate",
                // withConfiguration(allowedHosts: ["localhost"]) { resolve localhost; connect }
                "localhost-scope=\(server.port)",
                "connect=127.0.0.1:\(server.port)",
                "allow=localhost", "resolve=localhost", "allow=",
                "connect=127.0.0.1:\(server.port)",
                "violations",
            ])
            #expect(output.result("localhost-scope=") == "ok,ok", "\(output)")
            let connects = output.lines.filter { $0.hasPrefix("connect=") }.map { $0.components(separatedBy: " -> ").last ?? "" }
            #expect(connects == ["ECONNREFUSED", "ECONNREFUSED"], "\(output)")
            #expect(output.result("violations")?.hasPrefix("2 ") == true, "\(output)")
        }
    }

    @Test func aWarnModeLookupOpensNothingForLaterFailMode() async throws {
        try await HelloServer.with(host: "127.0.0.2") { server in
            let output = try await Probe.run([
                "mode=warn", "activate",
                "resolve=airgap-warn-lookup.invalid",
                "mode=fail",
                "connect=127.0.0.2:\(server.port)",
                "violations",
            ])
            #expect(output.result("resolve=") == "EAI_NONAME", "\(output)")
            #expect(output.result("connect=") == "ECONNREFUSED", "\(output)")
            #expect(output.result("violations")?.hasPrefix("2 ") == true, "\(output)")
        }
    }

    @Test(arguments: [Airgap.Mode.fail, .warn])
    func startingAProcessUnderTheGuardNeitherHangsNorReportsFoundationsOwnSockets(mode: Airgap.Mode) async throws {
        // A fresh process, so that Foundation creates its wake-up socket pair under the guard.
        let output = try await Probe.run(["mode=\(mode == .fail ? "fail" : "warn")", "activate", "process", "violations"])
        #expect(output.result("process") == "exit:0", "\(output)")
        #expect(output.result("violations") == "0", "\(output)")
    }

    @Test(arguments: [
        ("fail", "fail"), (" fail ", "fail"), ("FAIL", "fail"), ("1", "fail"), ("true", "fail"), ("on", "fail"),
        ("yes", "fail"), ("strict", "fail"), ("warn", "warn"), ("Warning", "warn"), ("off", "off"), ("0", "off"),
        ("false", "off"), ("", "off"), ("bogus", "fail"),
    ])
    func airgapModeValues(value: String, expected: String) async throws {
        let output = try await Probe.run(["status"], environment: ["AIRGAP_MODE": value])
        let status = output.result("status") ?? ""
        switch expected {
        case "off":
            #expect(status.hasPrefix("active=false wholeRun=false"), "\(output)")
        default:
            #expect(status.hasPrefix("active=true wholeRun=true mode=\(expected)"), "\(output)")
        }
        let complaint = output.standardError.split(separator: "\n").filter { $0.contains("is not a recognised value") }
        if value == "bogus" {
            #expect(complaint == ["Airgap: AIRGAP_MODE=\"bogus\" is not a recognised value, so the guard runs in fail mode. Accepted: fail (or 1, true, on, yes, strict, block, error), warn (or warning, report), off (or 0, false, no, none, disabled, empty)."], "\(output)")
        } else {
            #expect(complaint.isEmpty, "\(output)")
        }
    }

    @Test(.enabled(if: !ThreadSanitizer.isActive, "an instrumented preload library cannot load into other programs"))
    func aChildStartedInWholeRunModeInheritsTheGuardAndItsViolationFailsTheRun() async throws {
        let curl = try #require(["/usr/bin/curl", "/bin/curl", "/usr/local/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }, "this test needs curl")
        let listeners = try LoopbackListeners()
        let output = try await Probe.run(
            ["spawn=\(curl),-sS,--max-time,60,http://127.0.0.1:\(listeners.tcpPort)/", "violations"],
            environment: ["AIRGAP_MODE": "fail"]
        )
        #expect(listeners.received() == [], "\(output)")
        #expect(output.result("spawn=") == "exit:7", "curl exits 7 when it cannot connect: \(output)")
        #expect(output.result("violations") == "1 [CONNECT tcp://127.0.0.1:\(listeners.tcpPort)]", "\(output)")
        #expect(output.status == 1, "\(output)")
        #expect(output.standardError.contains("Airgap: 1 violation(s) detected across 1 test(s)"), "\(output)")
    }

    @Test func sharedSessionUsedBeforeActivationIsStillCaughtWithItsURL() async throws {
        try await HelloServer.with { server in
            let output = try await Probe.run([
                "shared=\(server.url())",
                "activate",
                "shared=http://airgap-late.invalid/",
                "violations",
            ])
            #expect(output.result("shared=http://127") == "ok:200", "\(output)")
            #expect(output.result("shared=http://airgap-late") == "urlerror:\(URLError.Code.notConnectedToInternet.rawValue)", "\(output)")
            #expect(output.result("violations") == "1 [GET http://airgap-late.invalid/]", "\(output)")
        }
    }

    @Test func sharedSessionKeepsItsURLWhenAnotherSessionWasCreatedBeforeActivation() async throws {
        try await HelloServer.with { server in
            let output = try await Probe.run([
                "ephemeral=\(server.url())",
                "activate",
                "shared=http://airgap-shared-late.invalid/path",
                "violations",
            ])
            #expect(output.result("ephemeral=") == "ok:200", "\(output)")
            #expect(output.result("shared=") == "urlerror:\(URLError.Code.notConnectedToInternet.rawValue)", "\(output)")
            #expect(output.result("violations") == "1 [GET http://airgap-shared-late.invalid/path]", "\(output)")
        }
    }

    /// `URLSession.shared` copies the registered classes when it is first used: first used between
    /// two activations, or after a deactivation, it still has the guard.
    @Test(arguments: [["activate", "deactivate"], ["ephemeral=LOOPBACK", "activate", "deactivate"]])
    func sharedSessionFirstUsedBetweenActivationsIsStillCaughtWithItsURL(before: [String]) async throws {
        try await HelloServer.with { server in
            let output = try await Probe.run(before.map { $0.replacingOccurrences(of: "LOOPBACK", with: server.url()) } + [
                "shared=\(server.url())",
                "activate",
                "shared=http://airgap-between.invalid/",
                "violations",
            ])
            #expect(output.result("shared=http://127") == "ok:200", "\(output)")
            #expect(output.result("shared=http://airgap-between") == "urlerror:\(URLError.Code.notConnectedToInternet.rawValue)", "\(output)")
            #expect(output.result("violations") == "1 [GET http://airgap-between.invalid/]", "\(output)")
        }
    }

    @Test func unixDomainSocketsAlwaysPass() async throws {
        let output = try await Probe.run(["unix", "violations"], environment: ["AIRGAP_MODE": "fail"])
        #expect(output.result("unix") == "ok", "\(output)")
        #expect(output.result("violations") == "0", "\(output)")
    }
}
