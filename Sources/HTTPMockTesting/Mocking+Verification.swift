@_exported import AirlockCassettes
@_exported import AirlockCore

extension Journaling {
    /// Checks how many requests matching `matcher` the mock received, and records a test failure
    /// at the caller's line when the count is off — under Swift Testing and XCTest alike.
    ///
    /// ```swift
    /// mock.verify(.post && .path("/users") && .json(#"{"name":"Alice"}"#), .exactly(1))
    /// mock.verify(.path("/analytics/**"), .never)
    /// ```
    ///
    /// The failure lists the requests that were made instead, each with what differed:
    ///
    /// ```
    /// Expected exactly 1 request matching method POST and path /users, but got 0.
    /// Requests made (1):
    ///   #1 GET https://api.example.com/users (stub host "api.example.com", path "/users")
    ///      method GET vs POST
    /// ```
    ///
    /// - Parameters:
    ///   - matcher: Which requests to count.
    ///   - times: How many are expected. Defaults to `.atLeast(1)`.
    ///   - fileID: Where a failure is reported; leave the default.
    ///   - filePath: Where a failure is reported; leave the default.
    ///   - line: Where a failure is reported; leave the default.
    ///   - column: Where a failure is reported; leave the default.
    /// - Returns: Whether the count was as expected.
    @discardableResult
    public func verify(
        _ matcher: RequestMatcher,
        _ times: Times = .atLeast(1),
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) -> Bool {
        let all = requests
        let count = all.filter(matcher.matches).count
        guard !times.accepts(count) else { return true }
        var message = VerificationMessage.count(expected: times, matcher: matcher, actual: count, requests: all, redaction: redaction)
        let dropped = droppedRequestCount
        if dropped > 0 {
            message += "\nNote: the journal dropped the \(dropped) oldest of \(requestCount) requests (journalCapacity); the count covers the \(all.count) kept."
        }
        TestFailure.record(message, fileID: fileID, filePath: filePath, line: line, column: column)
        return false
    }
}

extension Mocking {
    /// Records a test failure listing the stubs that were registered but never served.
    ///
    /// ```swift
    /// defer { mock.verifyAllStubsUsed() }
    /// ```
    ///
    /// - Returns: Whether every stub served at least once.
    @discardableResult
    public func verifyAllStubsUsed(
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) -> Bool {
        let unused = unusedStubs
        guard !unused.isEmpty else { return true }
        // `unusedStubs` is already shown through the mock's redaction.
        let message = "\(unused.count) stub(s) were registered but never used:\n"
            + unused.map { "  - \($0)" }.joined(separator: "\n")
            + "\nRemove them, or check that the code under test sends the requests they expect."
        TestFailure.record(message, fileID: fileID, filePath: filePath, line: line, column: column)
        return false
    }

    /// The strict check: records a test failure for every request no stub answered, each with
    /// the full diagnostic (the request, a paste-ready stub, and the nearest stubs with what
    /// differed).
    ///
    /// ```swift
    /// defer { mock.verifyNoUnmatchedRequests() }
    /// ```
    ///
    /// - Returns: Whether every request was answered by a stub.
    @discardableResult
    public func verifyNoUnmatchedRequests(
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) -> Bool {
        let unmatched = unmatchedRequests
        for request in unmatched {
            TestFailure.record(unmatchedMessage(for: request), fileID: fileID, filePath: filePath, line: line, column: column)
        }
        return unmatched.isEmpty
    }
}

/// The text of a failed count verification.
enum VerificationMessage {
    static func count(expected: Times, matcher: RequestMatcher, actual: Int, requests: [RecordedRequest], redaction: Redaction) -> String {
        var lines = ["Expected \(expected) matching \(matcher.template), but got \(actual)."]
        let shownRequests = requests.suffix(20)
        if requests.isEmpty {
            lines.append("No requests were made.")
        } else {
            lines.append("Requests made (\(requests.count)):")
            for request in shownRequests {
                let shown = redaction.apply(to: request)
                lines.append("  \(shown.description)")
                let differences = matcher.matches(request) ? [] : matcher.mismatchTemplates(shown)
                if !differences.isEmpty {
                    lines.append("     " + differences.joined(separator: "; "))
                } else {
                    lines.append("     matches")
                }
            }
            if requests.count > 20 {
                lines.insert("  (showing the last 20)", at: 2)
            }
        }
        // The one output pass: marked values, secret pairs, and the requests' own secret values.
        return redaction.text(lines.joined(separator: "\n"), secrets: redaction.secretValues(in: Array(shownRequests)))
    }
}
