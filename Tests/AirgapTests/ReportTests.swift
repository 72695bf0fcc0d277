@testable import Airgap
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Both report formats: the text format of the documentation and JSON decoding to `[Violation]`.
@Suite(.aloneAmongGuardedTests, .airgapped(mode: .warn, allowedHosts: Loopback.hosts))
struct ReportTests {
    private func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("airgap-\(UUID().uuidString)-\(name)").path
    }

    // What writeReport() returns, and that no violations leave no file, is in
    // URLProtocolGuardTests/aReportIsWrittenOnlyWhenThereAreViolations() (which also runs
    // without the socket layer).

    @Test func theProtocolMirrorsTheGuardForSwiftAirgapCode() {
        #expect(AirgapURLProtocol.isActive == Airgap.isActive)
        #expect(AirgapURLProtocol.isActive)
        #expect(!AirgapURLProtocol.isAllowed)
        #expect(AirgapURLProtocol.currentTestName == "ReportTests/theProtocolMirrorsTheGuardForSwiftAirgapCode()")
        Airgap.withNetworkAccessAllowed {
            #expect(AirgapURLProtocol.isAllowed)
        }
        #expect(!AirgapURLProtocol.isAllowed)
    }

    @Test func textFormatMatchesTheDocument() throws {
        var components = DateComponents()
        (components.year, components.month, components.day) = (2026, 2, 25)
        (components.hour, components.minute, components.second) = (14, 30, 0)
        let generated = try #require(Calendar.current.date(from: components))
        let frames = (1...12).map { "Frame\($0)() + \($0)" }
        let report = Airgap.textReport(
            [
                Violation(testName: "MyTests/fetchUser()", httpMethod: "GET", url: "https://api.example.com/user/123", callStack: frames),
                Violation(testName: "MyTests/postData()", httpMethod: "POST", url: "https://api.example.com/data", callStack: ["A() + 1", "B() + 2"]),
            ],
            generated: generated
        )
        let expected = """
            Airgap Violation Report
            Generated: 2026-02-25 14:30:00
            Total violations: 2

            ---
            Test: MyTests/fetchUser()
            Method: GET
            URL: https://api.example.com/user/123
            Call Stack:
            \((1...10).map { "  Frame\($0)() + \($0)" }.joined(separator: "\n"))
              ...

            ---
            Test: MyTests/postData()
            Method: POST
            URL: https://api.example.com/data
            Call Stack:
              A() + 1
              B() + 2

            """
        #expect(report == expected)
    }

    @Test func writesARealViolationAsText() async throws {
        _ = await Client.fetch(Client.session(.ephemeral), "http://airgap-report-text.invalid/")
        let path = temporaryPath("report.txt")
        defer { try? FileManager.default.removeItem(atPath: path) }
        Airgap.reportPath = path
        Airgap.writeReport()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "Airgap Violation Report")
        #expect(lines[1].hasPrefix("Generated: "))
        #expect(lines[2] == "Total violations: 1")
        #expect(lines[3...7] == ["", "---", "Test: ReportTests/writesARealViolationAsText()", "Method: RESOLVE", "URL: dns://airgap-report-text.invalid:80"])
        #expect(lines[8] == "Call Stack:")
        let frames = lines[9...].prefix { $0.hasPrefix("  ") }
        #expect((1...11).contains(frames.count))
        #expect(frames.first?.hasPrefix("  getaddrinfo + ") == true)
    }

    @Test func reportsHideCredentialsInURLs() async throws {
        let protected = Airgap.protect(Client.configured(.ephemeral))
        _ = await Client.fetch(URLSession(configuration: protected), "http://user:PASSWORDSECRET@airgap-secret.invalid/cb?state=1&access_token=QUERYSECRET#id_token=FRAGMENTSECRET")
        let path = temporaryPath("report.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        Airgap.reportPath = path
        Airgap.writeReport()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("airgap-secret.invalid"), "\(text)")
        for secret in ["PASSWORDSECRET", "QUERYSECRET", "FRAGMENTSECRET"] {
            #expect(!text.contains(secret), "\(secret) is in the report:\n\(text)")
        }
        #expect(Airgap.violations.allSatisfy { !$0.url.contains("QUERYSECRET") })
        // Whichever layer saw it, a violation never stores the credentials it was made with.
        let made = Violation(testName: "t", httpMethod: "GET", url: "https://u:PASSWORDSECRET@h.example/p?token=QUERYSECRET#access_token=FRAGMENTSECRET", callStack: [])
        #expect(made.url == "https://u:%5BREDACTED%5D@h.example/p?token=%5BREDACTED%5D#access_token=%5BREDACTED%5D")
    }

    @Test func writesJSONThatDecodesToViolations() async throws {
        try await HelloServer.with { server in
            _ = await Client.nioConnect(host: "127.0.0.2", port: server.port)
            let path = temporaryPath("report.json")
            defer { try? FileManager.default.removeItem(atPath: path) }
            Airgap.reportPath = path
            Airgap.writeReport()
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let decoded = try decoder.decode([Violation].self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(decoded.count == 1)
            #expect(decoded.first?.url == "tcp://127.0.0.2:\(server.port)")
            #expect(decoded.first?.httpMethod == "CONNECT")
            #expect(decoded.first?.port == server.port)
            #expect(decoded.first?.testName == "ReportTests/writesJSONThatDecodesToViolations()")
            #expect((1...10).contains(decoded.first?.callStack.count ?? 0))
        }
    }

    @Test func violationRoundTripsThroughJSON() throws {
        let violation = Violation(
            testName: "T/t()", httpMethod: "POST", url: "https://a.test/x", callStack: ["f() + 1"],
            timestamp: Date(timeIntervalSince1970: 1_700_000_000), contentType: "text/plain", host: "a.test", port: 443
        )
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(Violation.self, from: encoder.encode(violation)) == violation)
    }
}
