#if canImport(Testing)
import CAirgap
import Foundation
import Testing

/// The scope behind the `.airgapped` trait and `Airgap.scoped`. Scopes run in parallel: each is a
/// ``GuardScope`` carried by the test's task, with its own rules, settings and violations; the
/// process-wide guard only counts the open ones (the socket hooks enforce while there is one).
/// When the scope ends, its violations are recorded as issues on the test's own task.
enum ScopeRunner {
    static func run<T>(
        testName: String,
        sourceLocation: SourceLocation,
        mode: Airgap.Mode?,
        allowedHosts: Set<String>,
        _ body: () async throws -> T
    ) async rethrows -> T {
        let scope = GuardScope(testName: testName, mode: mode, allowedHosts: allowedHosts, parent: GuardScope.innermostOpen)
        open(scope)
        defer {
            // What child processes reported so far is recorded while this scope is still open.
            ViolationPipeline.settle()
            let effectiveMode = scope.mode
            close(scope)
            report(scope.sink.violations, mode: effectiveMode, at: sourceLocation)
        }
        return try await GuardScope.$current.withValue(scope) {
            try await body()
        }
    }

    /// Registers `scope` and turns the hooks on.
    private static func open(_ scope: GuardScope) {
        for (entry, problem) in scope.overrides.withLock({ $0.rules.rejected }) {
            printToStandardError("Airgap: ignoring allowed host \"\(entry)\": \(problem). Allowed hosts are host patterns (\"localhost\", \"*.example.com\", \"api-*.example.com\"), IP addresses (\"127.0.0.1\") or CIDR ranges (\"10.0.0.0/8\"), without port or scheme.")
        }
        SocketGuard.install()
        ChildProcesses.prepare()
        Airgap.state.withLock { $0.openScopes.append(scope) }
        Airgap.synchronise()
    }

    /// Unregisters `scope`; the hooks stop enforcing when it was the last open scope and the
    /// process-wide guard is off. The addresses allowed names resolved to are forgotten when the
    /// last scope closes.
    private static func close(_ scope: GuardScope) {
        scope.close()
        let isLast = Airgap.state.withLock { state in
            state.openScopes.removeAll { $0 === scope }
            return state.openScopes.isEmpty
        }
        Airgap.synchronise()
        if isLast { airgap_clear_resolved() }
    }

    /// Records each violation as an issue at the user's frame that made the call, when known,
    /// else at the test (or the `Airgap.scoped` call). Symbolicates each distinct stack once.
    private static func report(_ violations: [Violation], mode: Airgap.Mode, at scopeLocation: SourceLocation) {
        for violation in violations {
            let comment = Comment(rawValue: violation.message)
            let sourceLocation = DefaultReporting.sourceLocation(violation.userFrame) ?? scopeLocation
            switch mode {
            case .fail:
                Issue.record(comment, sourceLocation: sourceLocation)
            case .warn:
                withKnownIssue("Airgap violation (warning mode)") {
                    Issue.record(comment, sourceLocation: sourceLocation)
                }
            }
        }
    }
}
#endif
