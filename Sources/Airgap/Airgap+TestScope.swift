#if canImport(Testing)
import Foundation
import Testing

extension Airgap {
    /// Runs `body` with the guard active, then restores every setting, and records each
    /// violation as an `Issue` of the current test (a known issue in ``Mode/warn``).
    ///
    /// The same scope as the `.airgapped` trait, for code that wants it around one block:
    /// scopes are serialised process-wide, violations are cleared on entry (except in
    /// whole-run mode) and attributed to the current test.
    ///
    /// ```swift
    /// @Test func fetchData() async throws {
    ///     try await Airgap.scoped(mode: .warn, allowedHosts: ["localhost"]) {
    ///         // Violations are reported as known issues; localhost is allowed
    ///     }
    /// }
    /// ```
    /// - Parameters:
    ///   - mode: The mode inside the scope; `nil` keeps ``mode``.
    ///   - allowedHosts: Hosts added to ``allowedHosts`` inside the scope.
    ///   - sourceLocation: Where issues point when the call that caused them was not made on the
    ///     test's own thread (a URLSession or event-loop thread); the call of `scoped` by default.
    ///   - body: The code to guard.
    /// - Returns: What `body` returns.
    @discardableResult
    public static func scoped<T>(
        mode: Mode? = nil,
        allowedHosts: Set<String> = [],
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> T
    ) async rethrows -> T {
        let name = DefaultReporting.currentSwiftTestName() ?? "<unknown test>"
        return try await ScopeRunner.run(testName: name, sourceLocation: sourceLocation, mode: mode, allowedHosts: allowedHosts, body)
    }
}
#endif
