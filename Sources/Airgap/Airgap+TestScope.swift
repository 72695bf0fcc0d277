#if canImport(Testing)
import Foundation
import Testing

extension Airgap {
    /// Runs `body` with the guard active in a scope of its own (settings changed in it end with
    /// it), and records each violation as an `Issue` of the current test (a known issue in
    /// ``Mode/warn``).
    ///
    /// The same scope as the `.airgapped` trait, for code that wants it around one block: it runs
    /// in parallel with other tests' scopes, starts with no violations of its own, and attributes
    /// what its task tree reaches for to the current test. Nested in another scope, it adds its
    /// hosts to the enclosing scope's, and collects what happens inside it.
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
