import AirlockBase
import AirlockCore
import AirlockStubFiles
import Foundation
import HTTPTypes

extension Cassette {
    /// How requests are matched to recorded entries.
    ///
    /// By default a request matches an entry with the same method, host, path, query items (in
    /// any order) and body by meaning: JSON documents compare as values (key order and white
    /// space do not matter), form bodies as fields, other bodies byte for byte. Headers are not
    /// compared unless listed in ``headers``. A recorded value that redaction replaced
    /// (`[REDACTED]`) matches any value.
    ///
    /// ```swift
    /// var matching = Cassette.Matching()
    /// matching.ignoredJSONKeys = ["timestamp", "nonce"]
    /// matching.ignoredQueryItems = ["cacheBuster"]
    /// ```
    public struct Matching: Sendable {
        /// Query item names left out of the comparison (compared case-insensitively).
        public var ignoredQueryItems: Set<String>
        /// JSON object keys, at any depth, left out of the comparison (and form field names).
        public var ignoredJSONKeys: Set<String>
        /// Header names whose values must match the recorded ones; none by default.
        public var headers: Set<String>
        /// Whether bodies are compared. Defaults to `true`.
        public var comparesBody: Bool
        /// Whether the last recorded response for a request keeps answering once the others are
        /// used up. Defaults to `false`: a request made more often than recorded is unmatched.
        public var repeatsLastResponse: Bool
        /// Whether entries match only their recorded host (the default) or any host — as
        /// `airlock serve` does for a HAR file, where clients call the server itself.
        public var matchesAnyHost: Bool
        /// Replaces the comparison of method, query, headers and body: given a recorded entry,
        /// the matcher a request must satisfy to be answered by it (the path and host still
        /// route it).
        public var custom: (@Sendable (RecordedRequest) -> RequestMatcher)?

        /// Creates matching rules; every argument has a default.
        public init(
            ignoredQueryItems: Set<String> = [],
            ignoredJSONKeys: Set<String> = [],
            headers: Set<String> = [],
            comparesBody: Bool = true,
            repeatsLastResponse: Bool = false,
            matchesAnyHost: Bool = false,
            custom: (@Sendable (RecordedRequest) -> RequestMatcher)? = nil
        ) {
            self.ignoredQueryItems = Set(ignoredQueryItems.map { $0.lowercased() })
            self.ignoredJSONKeys = ignoredJSONKeys
            self.headers = headers
            self.comparesBody = comparesBody
            self.repeatsLastResponse = repeatsLastResponse
            self.matchesAnyHost = matchesAnyHost
            self.custom = custom
        }
    }
}

extension HTTPArchive {
    /// The archive as stubs: identical requests (by `matching`) share one queue with their
    /// responses in recorded order; each stub requires its entry's method, query and body.
    /// - Parameters:
    ///   - matching: How requests match entries.
    ///   - placeholders: The texts redaction leaves in recorded values; each matches any value.
    ///   - label: How stubs name the archive (`users.har`).
    ///   - pace: How fast recorded streams and WebSocket conversations replay.
    package func registrations(matching: Cassette.Matching, placeholders: Set<String>, label: String, pace: StreamPace = .asRecorded) -> [Registration] {
        var groups: [String: Int] = [:]
        var registrations: [Registration] = []
        var answers: [[RecordedRequest]] = []
        for (index, entry) in entries.enumerated() {
            guard entry.response != nil else { continue }
            let host = matching.matchesAnyHost ? "**" : entry.host
            let comparison = EntryComparison(entry, matching: matching, placeholders: placeholders)
            // A placeholder in the path (a named value such as an account id) stands for any text.
            let path = placeholders.reduce(entry.path) { $0.replacingOccurrences(of: $1, with: "*") }
            let key = [host, path, comparison.key].joined(separator: "\u{0}")
            if let group = groups[key] {
                answers[group].append(entry)
                continue
            }
            groups[key] = registrations.count
            let requirement = matching.custom?(entry) ?? comparison.matcher(label: "\(label) entry \(index + 1)")
            var registration = Registration(host: host, path: path, requirement: requirement, responses: [])
            registration.reportsEachResponse = true
            registrations.append(registration)
            answers.append([entry])
        }
        for index in registrations.indices {
            let entries = answers[index]
            registrations[index].responses = entries.enumerated().map { position, entry in
                let recorded = entry.response ?? RecordedResponse(outcome: .response(status: 200), headers: HTTPFields(), body: Data(), duration: 0)
                let repeats = matching.repeatsLastResponse && position == entries.count - 1
                if recorded.status == 101 || !entry.webSocketFrames.isEmpty {
                    // A WebSocket replays its conversation; the handshake's fields are the server's own.
                    let fields = recorded.headerFields.removing(names: Cassette.framingFields.union(Cassette.webSocketHandshakeFields))
                    return MockResponse.webSocket(
                        WebSocketScript(replaying: entry.webSocketFrames, openedAt: entry.date.addingTimeInterval(recorded.duration), pace: pace),
                        lifetime: repeats ? .eternal : .single,
                        headers: Dictionary(fields.map { ($0.name.rawName, $0.value) }) { first, second in first + ", " + second }
                    )
                }
                if let stream = recorded.stream {
                    // A recorded stream replays part by part, at the pace asked for. Its parts are
                    // never in a content coding (a coded stream is recorded whole; a URLSession
                    // hands over decoded pieces), so a Content-Encoding would not describe them.
                    return MockResponse(
                        replaying: stream.paced(by: pace.factor),
                        status: MockResponse.Status(code: recorded.status ?? 200),
                        lifetime: repeats ? .eternal : .single,
                        headerFields: recorded.headerFields.removing(names: Cassette.framingFields.union(["content-encoding"]))
                    ).withTrailersIfAny(recorded.trailerFields)
                }
                return MockResponse(
                    replaying: recorded.body,
                    status: MockResponse.Status(code: recorded.status ?? 200),
                    lifetime: repeats ? .eternal : .single,
                    headerFields: recorded.headerFields.removing(names: Cassette.framingFields),
                    bodyIsDecoded: !recorded.bodyIsEncoded
                ).withTrailersIfAny(recorded.trailerFields)
            }
        }
        return registrations
    }
}

extension MockResponse {
    /// The response followed by the recorded trailers (gRPC's status), when there were any.
    fileprivate func withTrailersIfAny(_ trailers: HTTPFields) -> MockResponse {
        trailers.isEmpty ? self : with(trailerFields: trailers)
    }
}

/// What a request must share with one recorded entry: method, query, listed headers and body by
/// meaning, with redaction placeholders matching anything.
struct EntryComparison: Sendable {
    private let method: String
    private let query: [String: [String]]
    private let headers: [String: String]
    private let body: Body?
    private let matching: Cassette.Matching
    private let placeholders: Set<String>

    enum Body: Sendable {
        case json(JSONValue)
        case form([String: [String]])
        case bytes(Data)
    }

    init(_ entry: RecordedRequest, matching: Cassette.Matching, placeholders: Set<String>) {
        method = entry.method
        self.matching = matching
        self.placeholders = placeholders
        query = Self.query(entry.queryItems, ignoring: matching.ignoredQueryItems)
        var headers: [String: String] = [:]
        for name in matching.headers {
            headers[name.lowercased()] = entry.header(name) ?? ""
        }
        self.headers = headers
        body = matching.comparesBody ? Self.body(of: entry, matching: matching) : nil
    }

    /// Equal for requests that are the same as far as matching goes: one queue each.
    var key: String {
        var parts = [method]
        parts.append(query.keys.sorted().map { "\($0)=\(query[$0]!.joined(separator: ","))" }.joined(separator: "&"))
        parts.append(headers.keys.sorted().map { "\($0):\(headers[$0]!)" }.joined(separator: "\n"))
        switch body {
        case .json(let value):
            parts.append("json:" + ((try? value.sortingKeys().compactData()).map { String(decoding: $0, as: UTF8.self) } ?? ""))
        case .form(let fields):
            parts.append("form:" + fields.keys.sorted().map { "\($0)=\(fields[$0]!.joined(separator: ","))" }.joined(separator: "&"))
        case .bytes(let data):
            parts.append("bytes:" + data.base64EncodedString())
        case nil:
            parts.append("")
        }
        return parts.joined(separator: "\u{1}")
    }

    /// The requirement for stubs of this entry, explaining each difference.
    func matcher(label: String) -> RequestMatcher {
        var description = "\(method) as recorded in \(label)"
        if !query.isEmpty {
            description += ", query " + query.keys.sorted().map { name in "\(name)=\(Self.mark(name, query[name]!))" }.joined(separator: "&")
        }
        switch body {
        case .json: description += ", same JSON body"
        case .form: description += ", same form fields"
        case .bytes(let data) where !data.isEmpty: description += ", same body (\(data.count) bytes)"
        default: break
        }
        return RequestMatcher(description: description) { request in
            differences(from: request)
        }
    }

    /// What differs between a request and the entry; empty when it matches.
    func differences(from request: RecordedRequest) -> [String] {
        var differences: [String] = []
        if request.method != method {
            differences.append("method \(request.method) vs \(method) recorded")
        }
        let requestQuery = Self.query(request.queryItems, ignoring: matching.ignoredQueryItems)
        for name in Set(query.keys).union(requestQuery.keys).sorted() {
            let recorded = query[name] ?? []
            let sent = requestQuery[name] ?? []
            if !valuesMatch(sent, recorded) {
                differences.append("query \(name)=\(sent.isEmpty ? "(absent)" : Self.mark(name, sent)) vs \(recorded.isEmpty ? "(absent)" : Self.mark(name, recorded)) recorded")
            }
        }
        for (name, recorded) in headers.sorted(by: { $0.key < $1.key }) {
            let sent = request.header(name) ?? ""
            if sent != recorded && !placeholders.contains(recorded) {
                differences.append("header \(name): \(Redaction.markHeader(name, sent)) vs \(Redaction.markHeader(name, recorded)) recorded")
            }
        }
        if let body, let difference = bodyDifference(request, recorded: body) {
            differences.append(difference)
        }
        return differences
    }

    private func valuesMatch(_ sent: [String], _ recorded: [String]) -> Bool {
        guard sent.count == recorded.count else { return false }
        let wildcards = recorded.filter { placeholders.contains($0) }.count
        var remaining = recorded.filter { !placeholders.contains($0) }
        var unmatched = 0
        for value in sent {
            if let index = remaining.firstIndex(of: value) { remaining.remove(at: index) } else { unmatched += 1 }
        }
        return unmatched <= wildcards
    }

    private func bodyDifference(_ request: RecordedRequest, recorded: Body) -> String? {
        switch recorded {
        case .json(let expected):
            guard let data = request.body, let sent = try? JSONValue.parse(Self.withoutBOM(data)) else {
                return "body is not JSON: \(RequestMatcher.preview(request.body)) (the recorded body is JSON)"
            }
            let path = firstDifference(Self.stripping(sent, matching.ignoredJSONKeys), expected, at: "$")
            return path.map { "JSON body differs at \($0)" }
        case .form(let expected):
            let sent = Self.form(request.bodyText ?? "", ignoring: matching.ignoredJSONKeys)
            for name in Set(expected.keys).union(sent.keys).sorted() where !valuesMatch(sent[name] ?? [], expected[name] ?? []) {
                let shown = { (values: [String]?) in values.map { Self.mark(name, $0) } ?? "(absent)" }
                return "form field \(name)=\(shown(sent[name])) vs \(shown(expected[name])) recorded"
            }
            return nil
        case .bytes(let expected):
            let sent = request.body ?? Data()
            return sent == expected ? nil : "body differs: \(RequestMatcher.preview(sent)) vs \(RequestMatcher.preview(expected)) recorded"
        }
    }

    /// `$.user.name: "Bob" vs "Alice" recorded`, or `nil` when equal (placeholders match anything).
    /// Values are marked with the key they belong to, for the output pass.
    private func firstDifference(_ sent: JSONValue, _ recorded: JSONValue, at path: String, key: String = "") -> String? {
        if case .string(let text) = recorded, placeholders.contains(text) { return nil }
        let mark = { (value: JSONValue) in key.isEmpty ? Self.short(value) : Redaction.markField(key, Self.short(value)) }
        switch (sent, recorded) {
        case (.object(let lhs), .object(let rhs)):
            for name in Set(lhs.keys).union(rhs.keys).sorted() {
                let markChild = { (value: JSONValue) in Redaction.markField(name, Self.short(value)) }
                guard let left = lhs[name] else { return "\(path).\(name): missing vs \(markChild(rhs[name]!)) recorded" }
                guard let right = rhs[name] else { return "\(path).\(name): \(markChild(left)) vs absent in the recording" }
                if let difference = firstDifference(left, right, at: "\(path).\(name)", key: name) { return difference }
            }
            return nil
        case (.array(let lhs), .array(let rhs)):
            guard lhs.count == rhs.count else { return "\(path): \(lhs.count) elements vs \(rhs.count) recorded" }
            for (index, pair) in zip(lhs, rhs).enumerated() {
                if let difference = firstDifference(pair.0, pair.1, at: "\(path)[\(index)]", key: key) { return difference }
            }
            return nil
        default:
            return sent == recorded ? nil : "\(path): \(mark(sent)) vs \(mark(recorded)) recorded"
        }
    }

    /// Values of a query item or field, marked for the output pass.
    private static func mark(_ name: String, _ values: [String]) -> String {
        values.map { Redaction.markField(name, $0) }.joined(separator: ",")
    }

    private static func short(_ value: JSONValue) -> String {
        let text = (try? value.sortingKeys().compactData()).map { String(decoding: $0, as: UTF8.self) } ?? "?"
        return RequestMatcher.truncate(text, to: 48)
    }

    private static func query(_ items: [RecordedRequest.QueryItem], ignoring ignored: Set<String>) -> [String: [String]] {
        QueryConstraint.lists(items.lazy.filter { !ignored.contains($0.name.lowercased()) }.map { (name: $0.name, value: $0.value) })
    }

    private static func body(of entry: RecordedRequest, matching: Cassette.Matching) -> Body {
        let data = entry.body ?? Data()
        let type = entry.header("Content-Type")?.lowercased() ?? ""
        if type.contains("application/x-www-form-urlencoded") {
            return .form(form(entry.bodyText ?? "", ignoring: matching.ignoredJSONKeys))
        }
        if !data.isEmpty, let value = try? JSONValue.parse(withoutBOM(data)) {
            switch value {
            case .object, .array: return .json(stripping(value, matching.ignoredJSONKeys))
            default: break
            }
        }
        return .bytes(data)
    }

    private static func form(_ text: String, ignoring ignored: Set<String>) -> [String: [String]] {
        var fields: [String: [String]] = [:]
        for (name, value) in FormFields.pairs(text) where !ignored.contains(name) {
            fields[name, default: []].append(value)
        }
        return fields.mapValues { $0.sorted() }
    }

    private static func stripping(_ value: JSONValue, _ keys: Set<String>) -> JSONValue {
        guard !keys.isEmpty else { return value }
        switch value {
        case .object(let object):
            return .object(object.filter { !keys.contains($0.key) }.mapValues { stripping($0, keys) })
        case .array(let array):
            return .array(array.map { stripping($0, keys) })
        default:
            return value
        }
    }

    private static func withoutBOM(_ data: Data) -> Data {
        data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data
    }
}
