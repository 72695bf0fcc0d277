import Foundation
import HTTPMock
import MockServer
import NIOCore
import Testing

/// HTTP/2 framing fed hostile input (issue 50): `Tests/Tools/h2_hostile.py`, a conformance-style
/// probe in the spirit of h2spec (which needs Go, not here), sends each case of a group to a real
/// MockServer over h2c — bad prefaces and SETTINGS, frames where they must not be, broken stream
/// states, CONTINUATION misuse, broken HPACK, malformed requests, floods (rapid reset,
/// CONTINUATION, HPACK bomb, PING, SETTINGS) and clients that stop halfway — and checks what the
/// server did against what RFC 9113 and RFC 7541 require. After every case it asks the server for
/// a normal response over HTTP/2 and over HTTP/1.1 on fresh connections: a server that stalls or
/// crashes fails the case whatever its reaction. Every read of the probe has a timeout (a hang
/// guard), and nothing here bounds how long the server may take.
///
/// One test per group, each against a server of its own, so that a failure names its group and
/// each case in it.
struct HTTP2HostileInputTests {
    /// The probe's groups of cases (`python3 Tests/Tools/h2_hostile.py list`).
    enum Group: String, CaseIterable, CustomTestStringConvertible {
        case prefaceSettings = "preface-settings"
        case frames
        case streams
        case continuation
        case hpack
        case fields
        case floods
        case slow

        var testDescription: String { rawValue }

        /// The fewest cases the probe must have run in the group: a probe that ran fewer lost some.
        var minimumCases: Int {
            switch self {
            case .prefaceSettings: 10
            case .frames: 21
            case .streams: 9
            case .continuation: 4
            case .hpack: 5
            case .fields: 15
            case .floods: 7
            case .slow: 5
            }
        }
    }

    /// Cases whose outcome differs from the RFC's expectation in a way that is SwiftNIO's
    /// documented behaviour and acceptable here, by name, with the reason. Empty: every case meets
    /// its expectation (where the RFC allows several reactions the probe accepts any of them).
    static let acceptedDeviations: [String: String] = [:]

    @Test(arguments: Group.allCases)
    func hostileHTTP2InputMeetsTheRFCAndTheServerGoesOn(_ group: Group) async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/alive", host: "**") { MockResponse.plaintext("alive", lifetime: .eternal) }
        // A request in flight beside a malformed one on the same connection.
        mock.addResponses(forPath: "/alive/slowly", host: "**") { MockResponse.plaintext("alive", lifetime: .eternal, delivery: .delayed(0.3)) }
        var configuration = MockServer.Configuration()
        var stallWait = "240"
        if group == .slow {
            // Short timeouts, for the server to end the half-open clients soon; the probe waits
            // up to `stallWait` (a hang guard, below the test's 300 s without a line).
            configuration.limits = .init(headerTimeout: 1, idleTimeout: 1)
        } else {
            stallWait = "60"
        }
        try await withServer(mock, configuration: configuration) { server in
            let run = try await ToolScriptRun.run(
                ["run", "--port", "\(server.port)", "--path", "/alive", "--slow-path", "/alive/slowly", "--group", group.rawValue, "--read-timeout", "60", "--stall-wait", stallWait],
                script: "h2_hostile.py"
            )
            let result = try #require(
                run.resultLine.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] },
                "no result line: \(run.lines.suffix(40).joined(separator: "\n"))"
            )
            let cases = try #require(result["cases"] as? [[String: Any]], "\(run.lines.suffix(40).joined(separator: "\n"))")
            #expect(cases.count >= group.minimumCases, "\(cases.map { $0["name"] as? String ?? "?" })")
            for outcome in cases {
                let name = outcome["name"] as? String ?? "?"
                let said = Self.describe(outcome)
                #expect(outcome["group"] as? String == group.rawValue, "\(said)")
                // Never a stall, never a server that stops answering.
                #expect(outcome["stalled"] as? Bool == false, "the server stalled: \(said)")
                let alive = outcome["alive"] as? [String: Any] ?? [:]
                #expect(alive["h2"] as? Int == 200, "no HTTP/2 answer after the case: \(said)")
                #expect(alive["h1"] as? Int == 200, "no HTTP/1.1 answer after the case: \(said)")
                if outcome["meets"] as? Bool != true, Self.acceptedDeviations[name] == nil {
                    Issue.record("not what the RFC asks: \(said)")
                }
            }
            if group == .fields {
                // A malformed request ends its own stream only: the request beside it is answered.
                let outcome = cases.first { $0["name"] as? String == "malformed-request-beside-one-in-flight" }
                #expect(outcome?["outcome"] as? String == "stream-error-others-answered", "\(outcome.map(Self.describe) ?? "the case did not run")")
            }
            if group == .slow {
                // A stream left open is answered as an HTTP/1.1 request would be: 408 (then reset).
                for name in ["stream-never-ends", "body-stops-halfway"] {
                    let outcome = cases.first { $0["name"] as? String == name }
                    #expect(outcome?["outcome"] as? String == "response 408", "\(outcome.map(Self.describe) ?? "\(name) did not run")")
                }
            }
            // The probe itself: no problem beyond the cases (the deviations accepted above).
            let unexplained = run.problems.filter { problem in !Self.acceptedDeviations.keys.contains { problem.hasPrefix("\($0): ") } }
            #expect(run.status != nil && unexplained.isEmpty, "\(unexplained.joined(separator: "\n"))\n--- last lines ---\n\(run.lines.suffix(30).joined(separator: "\n"))")

            // After the whole group the server still serves, on both protocols.
            let answered = try await withRawConnection(to: server) { connection in
                try await connection.send("GET /alive HTTP/1.1\r\nHost: localhost\r\n\r\n")
                return await connection.readResponses(1)
            }
            #expect(answered.first?.status == 200)
            #expect(mock.requests.contains { $0.httpVersion == "HTTP/2" && $0.url.hasSuffix("/alive") })
        }
    }

    /// One case's result as one line, for a failure message.
    static func describe(_ outcome: [String: Any]) -> String {
        let name = outcome["name"] as? String ?? "?"
        let got = outcome["outcome"] as? String ?? "?"
        let expected = outcome["expected"] as? [String: Any] ?? [:]
        let codes = (expected["codes"] as? [String] ?? []).joined(separator: "/")
        let rfc = outcome["rfc"] as? String ?? ""
        let events = (outcome["events"] as? [String] ?? []).prefix(8).joined(separator: "; ")
        return "\(name): got \(got), expected \(expected["kind"] as? String ?? "?") \(codes) (\(rfc)); events: \(events); alive after: \(outcome["alive"] ?? "?")"
    }
}
