import AirlockBase
import AirlockCore
import Foundation
import HTTPTypes

extension Cassette {
    /// A recorded request as it goes to the live service: rebased onto the base URL, its
    /// placeholders filled, its header fields in recorded order and its body byte for byte.
    public struct LiveRequest: Sendable {
        /// The method, as recorded.
        public let method: String
        /// The recorded URL's path and query under the base URL.
        public let url: String
        /// The recorded header fields in order (but `Host`, `Content-Length` and `Connection`,
        /// which the sender writes for the new connection), placeholders filled.
        public let headers: [RecordedRequest.Header]
        /// The recorded body, placeholders filled.
        public let body: Data?
    }

    /// Opens a cassette to verify it against the live service (``verify(against:options:send:)``)
    /// and refresh what drifted (``replaceDriftedEntries(from:redaction:)``), not to replay it:
    /// nothing is read when it opens, `AIRLOCK_RECORD` and `CI` do not apply, and a cassette past
    /// its ``maxAge`` opens too — which a nightly check of old recordings needs.
    ///
    /// ```swift
    /// let cassette = try Cassette(verifying: URL(fileURLWithPath: "Fixtures/users.har"))
    /// ```
    ///
    /// - Parameters:
    ///   - url: The HAR file.
    ///   - redaction: What to hide when drifted entries are written again, as when the cassette was
    ///     recorded. Defaults to `standard`.
    /// - Throws: ``CassetteError`` when the file does not exist.
    public convenience init(verifying url: URL, redaction: Redaction = .standard) throws(CassetteError) {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CassetteError(.invalidFile, file: url.path, problem: "does not exist", fix: "Give the HAR file to verify.")
        }
        try self.init(contentsOf: url, mode: .all, redaction: redaction, environment: [:])
    }

    /// Sends every recorded request to a live service and reports, per entry, what differs from
    /// the recording: status, media type, header names, the shape of JSON bodies and of streams
    /// of server-sent events — and values only where `options` asks.
    ///
    /// The file is read again, so entries recorded in this run count, whatever the mode the
    /// cassette was opened in; ``init(verifying:redaction:)`` opens one for this alone, even past
    /// its ``maxAge`` and on CI. Every request is prepared
    /// before the first is sent: an entry whose placeholder has no value is reported as not
    /// verified, and never sent. Requests go one at a time, in the file's order.
    ///
    /// `MockServer` adds `verify(against:options:timeout:)`, which sends over its own HTTP
    /// client; this one takes the sender, so that the format needs no client of its own:
    ///
    /// ```swift
    /// let report = try await cassette.verify(against: URL(string: "http://127.0.0.1:8080")!) { request in
    ///     try await myClient.send(request)  // a RecordedResponse
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - baseURL: The live service's origin (and a path prefix, if any): each recorded URL keeps
    ///     its path and query and takes this scheme, host and port.
    ///   - options: What is compared, what is ignored, and where placeholders' values come from.
    ///   - send: Sends one request and returns the whole response; a thrown error makes that entry
    ///     not verified, with the error's description as the reason.
    /// - Returns: The report, one entry per entry of the file.
    /// - Throws: ``CassetteError`` when the file cannot be read (``CassetteError/Code/invalidFile``),
    ///   a JSON path in `options` does not parse (``CassetteError/Code/invalidRule``), or
    ///   `baseURL` is not an `http(s)` URL (``CassetteError/Code/invalidBaseURL``).
    public func verify(
        against baseURL: URL,
        options: DriftOptions = DriftOptions(),
        send: @Sendable (LiveRequest) async throws -> RecordedResponse
    ) async throws(CassetteError) -> DriftReport {
        let (ignored, compared) = try options.rules()
        guard let scheme = baseURL.scheme?.lowercased(), scheme == "http" || scheme == "https", baseURL.host != nil, baseURL.query == nil else {
            throw CassetteError(.invalidBaseURL, file: nil, problem: "the base URL \"\(baseURL.absoluteString)\" is not an http(s) origin", fix: "Give one such as https://staging.example.com (a path prefix is allowed, no query).")
        }
        let startedAt = Date()
        let archive = try readForVerification()
        let comparison = ExchangeComparison(ignored: ignored, compared: compared, ignoredHeaders: options.ignoredHeaders)
        // Every request is prepared before the first goes out: a missing secret stops its entry
        // without a byte sent.
        let prepared = archive.entries.map { LiveRequestPreparation(entry: $0, baseURL: baseURL, options: options, replacement: redaction.replacement).result }
        var entries: [DriftReport.Entry] = []
        for (position, (recorded, preparation)) in zip(archive.entries, prepared).enumerated() {
            let index = archive.positions[position]
            switch preparation {
            case .failure(let problem):
                entries.append(DriftReport.Entry(index: index, recorded: recorded, drifts: [], problem: problem.description, liveExchange: nil, filled: [:]))
            case .success(let (request, filled)):
                let started = Date()
                let response: RecordedResponse
                do {
                    response = try await send(request)
                } catch {
                    entries.append(DriftReport.Entry(index: index, recorded: recorded, drifts: [], problem: "\(request.method) \(URLRedaction.standard(request.url)) failed: \(error)", liveExchange: nil, filled: filled))
                    continue
                }
                var live = RecordedRequest(sequence: 0, request: recorded.incoming, date: started)
                live.response = RecordedResponse(
                    status: response.status ?? 0,
                    headerFields: response.headerFields,
                    body: response.body,
                    bodyIsEncoded: response.bodyIsEncoded,
                    duration: Date().timeIntervalSince(started),
                    stream: response.stream,
                    trailerFields: response.trailerFields
                )
                var drifts = recorded.response.map { comparison.drifts(recorded: $0, live: response) } ?? []
                if let check = options.exchangeCheck {
                    if let recordedResponse = recorded.response {
                        drifts += check(recorded, recordedResponse).map { Drift(.contractViolation, at: "contract (recorded)", recorded: nil, live: $0) }
                    }
                    drifts += check(recorded, response).map { Drift(.contractViolation, at: "contract (live)", recorded: nil, live: $0) }
                }
                entries.append(DriftReport.Entry(index: index, recorded: recorded, drifts: drifts, problem: nil, liveExchange: live, filled: filled))
            }
        }
        return DriftReport(baseURL: baseURL.absoluteString, entries: entries, startedAt: startedAt)
    }

    /// Refreshes the cassette from a verification: replaces the entries that drifted with what the
    /// live service answered and, when every entry was verified, stamps the file as confirmed
    /// then — leaving every other byte of the file as it is.
    ///
    /// Each new entry is the recorded request (placeholders in place) with the live response,
    /// redacted by `redaction` as a recording is — and the values filled into placeholders hidden
    /// behind them again — then written in place of the old entry's text.
    ///
    /// When no entry of the report is ``DriftReport/Outcome/unverified``, the file's `log` gets
    /// `"_verifiedAt"` — the report's ``DriftReport/startedAt`` — added or replaced: a cassette's
    /// age (for ``maxAge``) counts from it when it is later than the oldest entry, so an expired
    /// cassette that still agrees with the service opens again, on CI too, with its entries'
    /// bytes unchanged. This is what `airlock cassette verify --update` runs.
    ///
    /// ```swift
    /// let report = try await cassette.verify(against: staging)
    /// try cassette.replaceDriftedEntries(from: report)
    /// ```
    ///
    /// - Parameters:
    ///   - report: A report of this cassette's file, unchanged since.
    ///   - redaction: What to hide, as when the cassette was recorded. Defaults to the
    ///     cassette's own ``redaction``.
    /// - Returns: The positions in `log.entries` of the entries replaced.
    /// - Throws: ``CassetteError`` when the file cannot be read or written.
    @discardableResult
    public func replaceDriftedEntries(from report: DriftReport, redaction: Redaction? = nil) throws(CassetteError) -> [Int] {
        var replacements: [Int: RecordedRequest] = [:]
        for entry in report.entries where entry.outcome == .drifted {
            guard let live = entry.liveExchange else { continue }
            var rules = redaction ?? self.redaction
            for (placeholder, value) in entry.filled { rules.filter(value, as: placeholder) }
            replacements[entry.index] = Self.cleaned(live, redaction: rules)
        }
        let stamps = !report.hasUnverified
        guard !replacements.isEmpty || stamps else { return [] }
        let original: Data
        do {
            original = try Data(contentsOf: url)
        } catch {
            throw CassetteError(.invalidFile, file: url.path, problem: "cannot be read (\(error.localizedDescription))", fix: "Check that the file exists and is readable.")
        }
        var spliced: Data
        do {
            spliced = try HTTPArchive.splicing(original, replacing: replacements)
            if stamps { spliced = try HTTPArchive.stamping(spliced, verifiedAt: report.startedAt) }
        } catch {
            throw CassetteError(.invalidFile, file: url.path, problem: error.description, fix: "Verify the cassette again: the file changed since the report.")
        }
        do {
            try spliced.write(to: url, options: .atomic)
        } catch {
            throw CassetteError(.writeFailed, file: url.path, problem: "cannot be written (\(error.localizedDescription))", fix: "Check that the file is writable.")
        }
        return replacements.keys.sorted()
    }

    /// An exchange as a cassette keeps it: redacted, without the fields of one transfer.
    static func cleaned(_ exchange: RecordedRequest, redaction: Redaction) -> RecordedRequest {
        var clean = redaction.apply(to: exchange)
        clean.response = clean.response?.removingFields(named: connectionFields)
        return clean
    }

    /// The file as it is now, for a verification.
    private func readForVerification() throws(CassetteError) -> HTTPArchive {
        do {
            return try HTTPArchive(contentsOf: url)
        } catch {
            throw CassetteError(.invalidFile, file: url.path, problem: error.description, fix: "Fix the file, or record it again.", fileError: error)
        }
    }
}

/// Makes the live request of one recorded entry: the URL rebased, and every placeholder filled
/// from the environment — or the reason it cannot be.
struct LiveRequestPreparation {
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    let result: Result<(Cassette.LiveRequest, [String: String]), Problem>

    init(entry: RecordedRequest, baseURL: URL, options: DriftOptions, replacement: String) {
        var filler = PlaceholderFiller(options: options, replacement: replacement)
        let url = Self.rebased(entry.url, onto: baseURL)
        let filledURL = filler.fill(url, in: "the URL", isURL: true)
        var headers: [RecordedRequest.Header] = []
        for header in entry.headers where !["host", "content-length", "connection"].contains(header.name.lowercased()) {
            headers.append(RecordedRequest.Header(name: header.name, value: filler.fill(header.value, in: "the header \(header.name)", isURL: false)))
        }
        var body = entry.body
        if let bytes = body, let text = String(bytes: bytes, encoding: .utf8) {
            body = Data(filler.fill(text, in: "the body", isURL: false).utf8)
        }
        if let problem = filler.problems.first {
            result = .failure(Problem(description: problem))
        } else {
            result = .success((Cassette.LiveRequest(method: entry.method, url: filledURL, headers: headers, body: body), filler.filled))
        }
    }

    /// `https://api.example.com/v1/users?page=2` onto `http://127.0.0.1:8080/prefix` gives
    /// `http://127.0.0.1:8080/prefix/v1/users?page=2`.
    static func rebased(_ recorded: String, onto base: URL) -> String {
        let components = URLComponents(string: recorded)
        var path = components?.percentEncodedPath ?? "/"
        if path.isEmpty { path = "/" }
        var origin = base.absoluteString
        if let query = origin.firstIndex(of: "?") { origin = String(origin[..<query]) }
        while origin.hasSuffix("/") { origin.removeLast() }
        return origin + path + (components?.percentEncodedQuery.map { "?" + $0 } ?? "")
    }
}

/// Fills placeholders in the texts of one request and keeps what it filled and what it could not.
struct PlaceholderFiller {
    let options: DriftOptions
    let replacement: String
    private(set) var filled: [String: String] = [:]
    private(set) var problems: [String] = []

    init(options: DriftOptions, replacement: String) {
        self.options = options
        self.replacement = replacement
    }

    mutating func fill(_ text: String, in place: String, isURL: Bool) -> String {
        var text = text
        // Named in the options, longest first (so that one placeholder inside another is not cut).
        for (placeholder, variable) in options.placeholders.sorted(by: { $0.key.count > $1.key.count }) {
            let spellings = isURL ? [placeholder, URLRedaction.encoded(placeholder)] : [placeholder]
            for spelling in spellings where text.contains(spelling) {
                guard let value = value(of: variable, for: placeholder, in: place) else { continue }
                text = text.replacingOccurrences(of: spelling, with: value)
            }
        }
        // `<NAME>` names its variable.
        for (spelling, name) in Self.namedPlaceholders(in: text, isURL: isURL) where options.placeholders["<\(name)>"] == nil {
            let placeholder = "<\(name)>"
            guard let value = value(of: name, for: placeholder, in: place) else { continue }
            text = text.replacingOccurrences(of: spelling, with: value)
        }
        for spelling in isURL ? [replacement, URLRedaction.encoded(replacement)] : [replacement] where text.contains(spelling) {
            problems.append("\(place) holds \(replacement), a value redacted when it was recorded, which cannot be sent: record it with --placeholder '<NAME>=VARIABLE' (Redaction.filter(_:as:)), or give its value with --placeholder '\(replacement)=VARIABLE' (DriftOptions.placeholders)")
            break
        }
        return text
    }

    private mutating func value(of variable: String, for placeholder: String, in place: String) -> String? {
        guard let value = options.environment[variable], !value.isEmpty else {
            problems.append("\(place) holds the placeholder \(placeholder), and the environment variable \(variable) that fills it is not set: export \(variable) with the real value (the placeholder itself is never sent)")
            return nil
        }
        filled[placeholder] = value
        return value
    }

    /// Each `<NAME>` (capital letters, digits, `_`, starting with a letter) in the text — in a URL
    /// also `%3CNAME%3E` — with its name.
    static func namedPlaceholders(in text: String, isURL: Bool) -> [(spelling: String, name: String)] {
        var found: [(String, String)] = []
        let delimiters: [(String, String)] = isURL ? [("<", ">"), ("%3C", "%3E"), ("%3c", "%3e")] : [("<", ">")]
        for (open, close) in delimiters {
            var rest = text[...]
            while let start = rest.range(of: open) {
                let after = rest[start.upperBound...]
                let name = after.prefix { $0.isASCII && ($0.isUppercase || $0.isNumber || $0 == "_") }
                if let first = name.first, first.isLetter, after.dropFirst(name.count).hasPrefix(close) {
                    let spelling = open + name + close
                    if !found.contains(where: { $0.0 == spelling }) { found.append((spelling, String(name))) }
                }
                rest = after
            }
        }
        return found
    }
}
