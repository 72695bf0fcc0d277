import AirlockBase
import AirlockCassettes
import AirlockCore
import AirlockStubFiles
import Foundation

/// One rule of a WireMock request pattern — the method, a header, a body pattern — with what
/// it requires in WireMock's words and how a request fares against it.
struct WireMockRule: Sendable {
    /// Which part of the request the rule reads; WireMock weighs them differently for near misses.
    enum Part: CaseIterable, Sendable {
        case scheme, host, port, clientIp, url, method
        case pathParameters, headers, query, form, cookies, body, multipart

        /// WireMock's weights: the request's address and method first (checked before the rest),
        /// then each group of the rest counting once.
        var weight: Double {
            switch self {
            case .scheme, .method, .clientIp: 3
            case .host, .port, .url: 10
            default: 1
            }
        }

        /// Whether the part is checked first; when one of these fails, the rest are not
        /// counted in the distance.
        var isAddress: Bool {
            switch self {
            case .scheme, .host, .port, .clientIp, .url, .method: true
            default: false
            }
        }
    }

    let part: Part
    /// What the rule requires, values marked for redaction: `header Accept contains "json"`.
    let template: String
    let verdict: @Sendable (WireMockRequestView) -> WireMockVerdict
    /// What the request had instead, values marked: `was "text/plain"`.
    let actual: @Sendable (WireMockRequestView) -> String

    /// `template: actual`, for a request the rule rejects.
    func mismatch(_ request: WireMockRequestView) -> String? {
        verdict(request).matched ? nil : "\(template): \(actual(request))"
    }

    /// WireMock's near-miss distance over a set of rules: the address rules by their weights;
    /// when they all hold, each other part (the mean of its rules) with weight 1.
    static func distance(_ rules: [WireMockRule], _ request: WireMockRequestView) -> Double {
        let addressWeight = Part.allCases.filter(\.isAddress).reduce(0) { $0 + $1.weight }
        var addressMiss = 0.0
        var addressMatched = true
        var parts: [Part: [Double]] = [:]
        for rule in rules {
            let verdict = rule.verdict(request)
            if rule.part.isAddress {
                addressMiss += rule.part.weight * verdict.distance
                addressMatched = addressMatched && verdict.matched
            } else {
                parts[rule.part, default: []].append(verdict.distance)
            }
        }
        guard addressMatched else { return addressMiss / addressWeight }
        let others = Part.allCases.filter { !$0.isAddress }
        let otherMiss = parts.values.reduce(0) { $0 + $1.reduce(0, +) / Double($1.count) }
        return (addressMiss + otherMiss) / (addressWeight + Double(others.count))
    }

    // MARK: Rules on named values

    /// A rule on the values of a named field (header, query parameter, form field, cookie).
    static func values(
        _ part: Part,
        label: String,
        _ pattern: WireMockMultiValuePattern,
        mark: WireMockMarker,
        values: @escaping @Sendable (WireMockRequestView) -> [String]?
    ) -> WireMockRule {
        WireMockRule(
            part: part,
            template: "\(label) \(pattern.template(mark))",
            verdict: { request in pattern.verdict(values(request), json: request.json) },
            actual: { request in shown(values(request), mark) }
        )
    }

    /// `was "a", "b"`, or `missing`.
    static func shown(_ values: [String]?, _ mark: WireMockMarker) -> String {
        guard let values else { return "missing" }
        return "was " + values.map { "\"\(mark(RequestMatcher.truncate($0)))\"" }.joined(separator: ", ")
    }
}
