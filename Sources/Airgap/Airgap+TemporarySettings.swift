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
    ///   - allowedHosts: The allowed hosts inside `body` (replacing, not adding).
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

    /// Sets the allow flag and returns its previous value.
    @discardableResult
    static func setAllowed(_ allowed: Bool) -> Bool {
        let previous = state.withLock { state in
            let previous = state.isAllowed
            state.isAllowed = allowed
            return previous
        }
        synchronise()
        return previous
    }
}

/// The user-facing settings, saved and restored by scopes.
struct Settings: Sendable {
    var mode: Airgap.Mode
    var allowedHosts: Set<String>
    var violationHandler: (@Sendable (String) -> Void)?
    var violationReporter: (@Sendable (Violation) -> Void)?
    var errorCode: Int
    var responseDelay: TimeInterval
    var passthroughProtocols: [URLProtocol.Type]

    static func current() -> Settings {
        Airgap.state.withLock { state in
            Settings(
                mode: state.mode,
                allowedHosts: state.allowedHosts,
                violationHandler: state.violationHandler,
                violationReporter: state.violationReporter,
                errorCode: state.errorCode,
                responseDelay: state.responseDelay,
                passthroughProtocols: state.passthroughProtocols
            )
        }
    }

    func restore() {
        Airgap.allowedHosts = allowedHosts
        Airgap.state.withLock { state in
            state.mode = mode
            state.violationHandler = violationHandler
            state.violationReporter = violationReporter
            state.errorCode = errorCode
            state.responseDelay = responseDelay
            state.passthroughProtocols = passthroughProtocols
        }
        Airgap.synchronise()
    }
}
