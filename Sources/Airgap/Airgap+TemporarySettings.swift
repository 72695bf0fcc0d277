import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Airgap {
    /// Runs `body` with network access allowed, then restores the previous state, even when
    /// `body` throws.
    ///
    /// ```swift
    /// let data = try Airgap.withNetworkAccessAllowed { try loadFixtureOverTheNetwork() }
    /// ```
    /// - Parameter body: The code that may use the network.
    /// - Returns: What `body` returns.
    @discardableResult
    public static func withNetworkAccessAllowed<T>(_ body: () throws -> T) rethrows -> T {
        let previous = setAllowed(true)
        defer { setAllowed(previous) }
        return try body()
    }

    /// Runs the asynchronous `body` with network access allowed, then restores the previous
    /// state, even when `body` throws.
    ///
    /// ```swift
    /// let (data, _) = try await Airgap.withNetworkAccessAllowed {
    ///     try await URLSession.shared.data(from: url)
    /// }
    /// ```
    /// - Parameter body: The code that may use the network.
    /// - Returns: What `body` returns.
    @discardableResult
    public static func withNetworkAccessAllowed<T>(_ body: () async throws -> T) async rethrows -> T {
        let previous = setAllowed(true)
        defer { setAllowed(previous) }
        return try await body()
    }

    /// Runs `body` with temporary settings, restoring every setting afterwards, even when
    /// `body` throws. Only the parameters you pass change; `nil` keeps the current value.
    ///
    /// ```swift
    /// Airgap.withConfiguration(mode: .warn, allowedHosts: ["localhost"]) {
    ///     // Run code with temporary overrides
    /// }
    /// ```
    /// Saved and restored: mode, allowed hosts, violation handler and reporter, error code,
    /// response delay and passthrough protocols. The body is synchronous; for async scopes use
    /// the `.airgapped` trait or ``scoped(mode:allowedHosts:sourceLocation:_:)``.
    /// - Parameters:
    ///   - mode: The mode inside `body`.
    ///   - allowedHosts: The allowed hosts inside `body` (replacing, not adding; inside a scope,
    ///     replacing what the scope adds to the process-wide hosts).
    ///   - violationHandler: The violation handler inside `body`.
    ///   - violationReporter: The violation reporter inside `body`.
    ///   - errorCode: The URL error code inside `body`.
    ///   - responseDelay: The response delay inside `body`.
    ///   - passthroughProtocols: The passthrough protocols inside `body`.
    ///   - body: The code to run.
    /// - Returns: What `body` returns.
    @discardableResult
    public static func withConfiguration<T>(
        mode: Mode? = nil,
        allowedHosts: Set<String>? = nil,
        violationHandler: (@Sendable (String) -> Void)? = nil,
        violationReporter: (@Sendable (Violation) -> Void)? = nil,
        errorCode: Int? = nil,
        responseDelay: TimeInterval? = nil,
        passthroughProtocols: [URLProtocol.Type]? = nil,
        body: () throws -> T
    ) rethrows -> T {
        let saved = Settings.current()
        defer { saved.restore() }
        if let mode { self.mode = mode }
        if let allowedHosts { self.allowedHosts = allowedHosts }
        if let violationHandler { self.violationHandler = violationHandler }
        if let violationReporter { self.violationReporter = violationReporter }
        if let errorCode { self.errorCode = errorCode }
        if let responseDelay { self.responseDelay = responseDelay }
        if let passthroughProtocols { self.passthroughProtocols = passthroughProtocols }
        return try body()
    }

    /// Sets the allow flag (the innermost open scope's, else the process's) and returns its
    /// previous value.
    @discardableResult
    static func setAllowed(_ allowed: Bool) -> Bool {
        var previous = false
        let scoped = setInScope { overrides in
            previous = overrides.isAllowed
            overrides.isAllowed = allowed
        }
        if !scoped {
            previous = state.withLock { state in
                let previous = state.isAllowed
                state.isAllowed = allowed
                return previous
            }
        }
        synchronise()
        return previous
    }
}

/// The user-facing settings, saved and restored by ``Airgap/withConfiguration(mode:allowedHosts:violationHandler:violationReporter:errorCode:responseDelay:passthroughProtocols:body:)``:
/// as they apply here (inside a scope, the scope's).
struct Settings: Sendable {
    var mode: Airgap.Mode
    var allowedHosts: Set<String>
    var violationHandler: (@Sendable (String) -> Void)?
    var violationReporter: (@Sendable (Violation) -> Void)?
    var errorCode: Int
    var responseDelay: TimeInterval
    var passthroughProtocols: [URLProtocol.Type]

    static func current() -> Settings {
        Settings(
            mode: Airgap.mode,
            allowedHosts: Airgap.allowedHosts,
            violationHandler: Airgap.setting({ $0.violationHandler }, { $0.violationHandler }),
            violationReporter: Airgap.violationReporter,
            errorCode: Airgap.errorCode,
            responseDelay: Airgap.responseDelay,
            passthroughProtocols: Airgap.passthroughProtocols
        )
    }

    func restore() {
        Airgap.allowedHosts = allowedHosts
        Airgap.mode = mode
        if !Airgap.setInScope({ $0.violationHandler = .some(violationHandler) }) {
            Airgap.state.withLock { $0.violationHandler = violationHandler }
        }
        Airgap.violationReporter = violationReporter
        Airgap.errorCode = errorCode
        Airgap.responseDelay = responseDelay
        Airgap.passthroughProtocols = passthroughProtocols
    }
}
