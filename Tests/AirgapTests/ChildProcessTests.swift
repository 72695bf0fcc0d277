import Airgap
import Foundation
import Testing

/// Scenarios that need a fresh process, run through the `AirgapProbe` executable: whole-run
/// mode (`AIRGAP_MODE` at start-up), `URLSession.shared` before its first use, and blocking
/// 127.0.0.1 (which other tests in this process use).
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
            #expect(output.status == 0, "\(output)")
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

    @Test func wholeRunWarnModeLetsCallsProceedAndWritesTheTextReport() async throws {
        let report = temporaryPath("whole-run.txt")
        defer { try? FileManager.default.removeItem(atPath: report) }
        try await HelloServer.with { server in
            let output = try await Probe.run(
                ["status", "connect=\(server.authority)", "ephemeral=\(server.url())"],
                environment: ["AIRGAP_MODE": "warn", "AIRGAP_REPORT_PATH": report]
            )
            #expect(output.result("status")?.hasPrefix("active=true wholeRun=true mode=warn") == true, "\(output)")
            #expect(output.result("connect=") == "ok", "\(output)")
            #expect(output.result("ephemeral=") == "ok:200", "\(output)")
            #expect(output.standardError.contains("warning: Airgap: Detected connection to tcp://\(server.authority)."), "\(output)")
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

    @Test func loopbackIsBlockedUntilAnAllowedNameResolvesToIt() async throws {
        try await HelloServer.with(host: "127.0.0.1") { server in
            let output = try await Probe.run([
                "allow=localhost", "activate",
                "connect=127.0.0.1:\(server.port)",
                "resolve=localhost",
                "connect=127.0.0.1:\(server.port)",
                "deactivate", "activate",
                "connect=127.0.0.1:\(server.port)",
                "violations",
            ])
            let connects = output.lines.filter { $0.hasPrefix("connect=") }
            // Blocked; allowed after "localhost" resolved to it; blocked again after re-activation.
            #expect(connects.map { $0.components(separatedBy: " -> ").last ?? "" } == ["ECONNREFUSED", "ok", "ECONNREFUSED"], "\(output)")
            #expect(output.result("resolve=") == "ok", "\(output)")
            #expect(output.result("violations")?.hasPrefix("2 ") == true, "\(output)")
        }
    }

    @Test func sharedSessionUsedBeforeActivationIsStillCaughtByTheSocketLayer() async throws {
        try await HelloServer.with { server in
            let output = try await Probe.run([
                "shared=\(server.url())",
                "activate",
                "shared=http://airgap-late.invalid/",
                "violations",
            ])
            #expect(output.result("shared=http://127") == "ok:200", "\(output)")
            #expect(output.result("shared=http://airgap-late") == "urlerror:-1003", "\(output)")
            #expect(output.result("violations") == "1 [RESOLVE dns://airgap-late.invalid:80]", "\(output)")
        }
    }

    @Test func unixDomainSocketsAlwaysPass() async throws {
        let output = try await Probe.run(["unix", "violations"], environment: ["AIRGAP_MODE": "fail"])
        #expect(output.result("unix") == "ok", "\(output)")
        #expect(output.result("violations") == "0", "\(output)")
    }
}
