import Foundation

extension Airgap {
    /// A one-line summary of the collected violations, or `nil` when there are none.
    ///
    /// ```swift
    /// print(Airgap.violationSummary() ?? "")  // "Airgap: 3 violation(s) detected across 2 test(s)"
    /// ```
    /// - Returns: The summary, or `nil`.
    public static func violationSummary() -> String? {
        let current = violations
        guard !current.isEmpty else { return nil }
        let tests = Set(current.map(\.testName))
        return "Airgap: \(current.count) violation(s) detected across \(tests.count) test(s)"
    }

    /// Writes the collected violations to ``reportPath``.
    ///
    /// A path ending in `.json` gets the ``Violation`` array as JSON (ISO 8601 dates, sorted
    /// keys); any other path gets the text format below. Both cut call stacks to 10 frames
    /// (symbolicated now, each distinct stack once). Missing directories are created.
    ///
    /// Nothing to write is success, as in swift-airgap: when ``reportPath`` is `nil`, or there are
    /// no violations, it writes nothing, creates no file (a file already at the path is left as
    /// it is) and returns `true`. A run without violations therefore leaves no report behind.
    ///
    /// ```
    /// Airgap Violation Report
    /// Generated: 2026-02-25 14:30:00
    /// Total violations: 1
    ///
    /// ---
    /// Test: MyTests/fetchUser()
    /// Method: GET
    /// URL: https://api.example.com/user/123
    /// Call Stack:
    ///   MyService.fetchUser() + 42 at MyService.swift:12
    ///   ...
    /// ```
    /// A final `  ...` line marks a stack that was cut.
    ///
    /// - Returns: `true` when the report was written or there was nothing to write; `false` when
    ///   the file could not be written (a message on standard error says why).
    @discardableResult
    public static func writeReport() -> Bool {
        guard let path = reportPath else { return true }
        let collected = violations
        guard !collected.isEmpty else { return true }
        let current = collected.map(\.truncatedForReport)
        do {
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            let data: Data
            if (path as NSString).pathExtension.lowercased() == "json" {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                encoder.dateEncodingStrategy = .iso8601
                data = try encoder.encode(current)
            } else {
                data = Data(textReport(current, generated: Date()).utf8)
            }
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            return true
        } catch {
            printToStandardError("Airgap: could not write the report to \(path): \(error). Check that the directory is writable, or change Airgap.reportPath / AIRGAP_REPORT_PATH.")
            return false
        }
    }

    /// The text report for `violations`.
    static func textReport(_ violations: [Violation], generated: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        var lines = [
            "Airgap Violation Report",
            "Generated: \(formatter.string(from: generated))",
            "Total violations: \(violations.count)",
        ]
        for violation in violations {
            lines.append("")
            lines.append("---")
            lines.append("Test: \(violation.testName)")
            lines.append("Method: \(violation.httpMethod)")
            lines.append("URL: \(violation.url)")
            lines.append("Call Stack:")
            for frame in violation.callStack.prefix(Violation.reportedFrames) {
                lines.append("  \(frame)")
            }
            if violation.callStack.count > Violation.reportedFrames {
                lines.append("  ...")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Records a violation the guard saw, before the blocked call returns: stores it in
    /// ``violations`` and in the scopes of `delivery` (which record their issues when they end),
    /// then calls the reporters and, outside any scope, the handler. The call stack is
    /// symbolicated only when someone reads it.
    static func record(_ violation: Violation, delivery: ViolationPipeline.Delivery) {
        store(violation, delivery: delivery).run()
    }

    /// Stores a violation (one copy per scope of `delivery`, named for that scope's test) and
    /// returns what reports it, to run where user code may run.
    static func store(_ violation: Violation, delivery: ViolationPipeline.Delivery) -> ViolationNotice {
        switch delivery {
        case .scopes(let scopes):
            let copies = scopes.map { violation.attributed(to: $0.testName) }
            for (scope, copy) in zip(scopes, copies) { scope.sink.append(copy) }
            let processReporter = state.withLock { state in
                state.violations.append(contentsOf: copies)
                return state.violationReporter
            }
            let reports = zip(scopes, copies).map { scope, copy in
                (copy, scope.inherited({ $0.violationReporter }, processWide: { processReporter }))
            }
            return ViolationNotice(reports: reports, handler: nil)
        case let .handler(handler, mode, inXCTest, xctest):
            let reporter = state.withLock { state in
                state.violations.append(violation)
                return state.violationReporter
            }
            return ViolationNotice(reports: [(violation, reporter)], handler: { report(violation.message, stack: violation.stack, handler: handler, mode: mode, inXCTest: inXCTest, xctest: xctest) })
        }
    }

    /// Reports a message through `handler` (`nil`: the built-in one) as `mode` says. `stack` is
    /// the violation's, from which the built-in handler takes the user's frame to point at.
    static func report(
        _ message: String,
        stack: ViolationStack?,
        handler: (@Sendable (String) -> Void)?,
        mode: Mode,
        inXCTest: Bool,
        xctest: XCTestCaseReference?
    ) {
        DefaultReporting.$stack.withValue(stack) {
            DefaultReporting.$xctest.withValue(xctest) {
                switch mode {
                case .fail:
                    (handler ?? DefaultReporting.handle)(message)
                case .warn:
                    if inXCTest {
                        DefaultReporting.printWarning(message)
                    } else if let handler {
                        handler(message)
                    } else {
                        DefaultReporting.warn(message)
                    }
                }
            }
        }
    }

    /// The name to attribute a violation to, from the innermost source that knows it.
    static func attributedTestName() -> String {
        if let scope = GuardScope.innermostOpen { return scope.testName }
        #if canImport(Testing)
        if let test = DefaultReporting.currentSwiftTestName() { return test }
        #endif
        return state.withLock { $0.currentXCTestName } ?? "<unknown test>"
    }
}

/// What reports a stored violation: the reporters of the scopes it went to (or the process's),
/// then, outside any scope, the handler.
struct ViolationNotice: Sendable {
    let reports: [(Violation, (@Sendable (Violation) -> Void)?)]
    let handler: (@Sendable () -> Void)?

    func run() {
        for (violation, reporter) in reports { reporter?(violation) }
        handler?()
    }
}

extension Violation {
    /// This violation, attributed to `testName`.
    func attributed(to testName: String) -> Violation {
        guard testName != self.testName else { return self }
        return Violation(
            testName: testName, httpMethod: httpMethod, url: url, stack: stack, timestamp: timestamp,
            contentType: contentType, host: host, port: port, kind: kind, wasBlocked: wasBlocked
        )
    }

    /// The number of call-stack frames a report shows.
    static let reportedFrames = 10

    /// This violation with its call stack cut for a report.
    var truncatedForReport: Violation {
        Violation(
            testName: testName,
            httpMethod: httpMethod,
            url: url,
            callStack: Array(callStack.prefix(Self.reportedFrames)),
            timestamp: timestamp,
            contentType: contentType,
            host: host,
            port: port,
            kind: kind,
            wasBlocked: wasBlocked
        )
    }

    /// The message given to handlers and recorded as an issue.
    var message: String {
        let verb = wasBlocked ? "Blocked" : "Detected"
        var text: String
        switch kind {
        case .connect:
            text = "Airgap: \(verb) connection to \(url)."
        case .resolve:
            text = "Airgap: \(verb) host name lookup of \(host ?? url)."
        case .request:
            text = "Airgap: \(verb) \(httpMethod) request to \(url)."
        }
        text += " Tests must not make real network calls. Use a mock or stub instead."
        if let contentType {
            text += "\nContent-Type: \(contentType)"
        }
        text += "\nTest: \(testName)"
        text += "\nHint: Use Airgap.allowNetworkAccess() for this test, add the host to Airgap.allowedHosts, or use .warn mode for non-blocking violations."
        return text
    }
}
