import AirlockBase
import AirlockCore
import Foundation

/// What ``Cassette/verify(against:options:send:)`` found: for each entry of the cassette, whether
/// the live service still answers as recorded, and if not, what drifted where.
///
/// ```swift
/// let report = try await cassette.verify(against: URL(string: "https://staging.example.com")!)
/// print(report.table)
/// #expect(!report.hasDrift, "\(report.table)")
/// ```
///
/// ``table`` is for people; ``jsonData()`` for CI (`airlock cassette verify --json`).
public struct DriftReport: Sendable {
    /// How one entry's verification ended.
    public enum Outcome: String, Sendable {
        /// The live answer agrees with the recording (after the rules).
        case agrees
        /// The live answer differs: ``Entry/drifts`` says where.
        case drifted
        /// The entry could not be verified — a placeholder without a value, a request that
        /// failed — and ``Entry/problem`` says why. Nothing was compared.
        case unverified
    }

    /// One entry of the cassette and what its verification found.
    public struct Entry: Sendable {
        /// The entry's position in the file's `log.entries` (from 0).
        public let index: Int
        /// The recorded method.
        public let method: String
        /// The recorded URL, placeholders in place.
        public let url: String
        /// How the verification ended.
        public let outcome: Outcome
        /// What differs, for ``Outcome/drifted`` (contract violations of an entry that otherwise
        /// agrees make it drifted too).
        public let drifts: [Drift]
        /// Why the entry could not be verified, for ``Outcome/unverified``.
        public let problem: String?
        /// The exchange as it would be recorded now — the recorded request (placeholders in
        /// place) with the live response — for entries that were sent.
        public let liveExchange: RecordedRequest?
        /// The placeholders filled for the live request, with their values, so that rewriting
        /// the entry hides those values again.
        let filled: [String: String]

        init(index: Int, recorded: RecordedRequest, drifts: [Drift], problem: String?, liveExchange: RecordedRequest?, filled: [String: String]) {
            self.index = index
            method = recorded.method
            url = recorded.url
            self.drifts = drifts
            self.problem = problem
            self.liveExchange = liveExchange
            self.filled = filled
            outcome = problem != nil ? .unverified : drifts.isEmpty ? .agrees : .drifted
        }
    }

    /// The origin the recorded requests were sent to.
    public let baseURL: String
    /// Every entry of the cassette, in the file's order.
    public let entries: [Entry]
    /// When the verification started: what ``Cassette/replaceDriftedEntries(from:redaction:)``
    /// stamps the file with (`_verifiedAt`) once every entry is confirmed.
    public let startedAt: Date

    init(baseURL: String, entries: [Entry], startedAt: Date) {
        self.baseURL = baseURL
        self.entries = entries
        self.startedAt = startedAt
    }

    /// Whether any entry drifted.
    public var hasDrift: Bool { entries.contains { $0.outcome == .drifted } }
    /// Whether any entry could not be verified.
    public var hasUnverified: Bool { entries.contains { $0.outcome == .unverified } }

    /// A table for people: one row per drift (or per entry that agrees or was not verified).
    ///
    /// ```text
    /// ENTRY  METHOD  URL                               RESULT
    /// 0      GET     https://api.example.com/users/1   body $.id: number → string
    ///                                                  header X-Trace: added
    /// 1      GET     https://api.example.com/health    agrees
    /// 2 of 3 entries agree, 1 drifted, 0 not verified (against http://127.0.0.1:8080).
    /// ```
    public var table: String {
        var rows: [(String, String, String, String)] = [("ENTRY", "METHOD", "URL", "RESULT")]
        for entry in entries {
            let shownURL = URLRedaction.standard(entry.url)
            switch entry.outcome {
            case .agrees:
                rows.append(("\(entry.index)", entry.method, shownURL, "agrees"))
            case .unverified:
                rows.append(("\(entry.index)", entry.method, shownURL, "not verified: \(entry.problem ?? "")"))
            case .drifted:
                for (position, drift) in entry.drifts.enumerated() {
                    rows.append(position == 0 ? ("\(entry.index)", entry.method, shownURL, drift.description) : ("", "", "", drift.description))
                }
            }
        }
        let widths = (
            rows.map(\.0.count).max() ?? 0, rows.map(\.1.count).max() ?? 0, rows.map(\.2.count).max() ?? 0
        )
        func padded(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
        var lines = rows.map { "\(padded($0.0, widths.0))  \(padded($0.1, widths.1))  \(padded($0.2, widths.2))  \($0.3)" }
        lines.append(summary)
        return lines.joined(separator: "\n")
    }

    /// `2 of 3 entries agree, 1 drifted, 0 not verified (against http://127.0.0.1:8080).`
    public var summary: String {
        let agreeing = entries.filter { $0.outcome == .agrees }.count
        let drifted = entries.filter { $0.outcome == .drifted }.count
        let unverified = entries.filter { $0.outcome == .unverified }.count
        return "\(agreeing) of \(entries.count) entr\(entries.count == 1 ? "y agrees" : "ies agree"), \(drifted) drifted, \(unverified) not verified (against \(baseURL))."
    }

    /// The report as JSON, for CI:
    ///
    /// ```json
    /// {"baseURL": "…", "agree": 1, "drifted": 1, "unverified": 0,
    ///  "entries": [{"index": 0, "method": "GET", "url": "…", "outcome": "drifted",
    ///               "drifts": [{"kind": "typeChanged", "path": "body $.id", "recorded": "number", "live": "string"}]}]}
    /// ```
    /// - Returns: The document, pretty-printed, members in that order.
    public func jsonData() -> Data {
        func string(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
        let list: [JSONValue] = entries.map { entry in
            var members: [(String, JSONValue)] = [
                ("index", .number(Double(entry.index))),
                ("method", .string(entry.method)),
                ("url", .string(URLRedaction.standard(entry.url))),
                ("outcome", .string(entry.outcome.rawValue)),
            ]
            members.append((
                "drifts",
                .array(entry.drifts.map { drift in
                    JSONValue.members([("kind", .string(drift.kind.description)), ("path", .string(drift.path)), ("recorded", string(drift.recorded)), ("live", string(drift.live))])
                })
            ))
            if let problem = entry.problem { members.append(("problem", .string(problem))) }
            return JSONValue.members(members)
        }
        let document = JSONValue.members([
            ("baseURL", .string(baseURL)),
            ("agree", .number(Double(entries.filter { $0.outcome == .agrees }.count))),
            ("drifted", .number(Double(entries.filter { $0.outcome == .drifted }.count))),
            ("unverified", .number(Double(entries.filter { $0.outcome == .unverified }.count))),
            ("entries", .array(list)),
        ])
        return document.prettyText
    }
}
