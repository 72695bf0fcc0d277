import Foundation
import Logging
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Logs the real HTTP traffic of any `URLSession` through swift-log and records it in a journal,
/// with credentials redacted.
///
/// Put its protocol into the configuration of the session under test (or let it make the
/// session); each request is forwarded to the network through ``forwardingSession`` and logged
/// as one line — method, URL, status, bytes and duration:
///
/// ```swift
/// let httpLog = HTTPLogger(logger: Logger(label: "app.network"))
/// let configuration = URLSessionConfiguration.default
/// httpLog.install(in: configuration)
/// let session = URLSession(configuration: configuration)
/// // … GET https://api.example.com/users → 200, 512 bytes, 38 ms
/// let sent = httpLog.requests          // the same RecordedRequest type as HTTPMock.requests
/// ```
///
/// `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and API-key headers, token
/// query items and secret JSON fields are redacted in logs and exports by default (see
/// ``redaction``). Headers are logged at `debug` level, exchanges at `info`, failures at `error`.
public final class HTTPLogger: Sendable {
    /// Where exchanges are logged.
    public let logger: Logger
    /// The session that carries requests to the network. It must not list this logger's
    /// protocol; the default, an ephemeral session, does not.
    public let forwardingSession: URLSession

    package let journal = RequestJournal()
    private let redactionState = Locked(Redaction.standard)
    private let slot: Int
    private let protocolClass: LoggingURLProtocol.Type

    /// Creates a logger.
    /// - Parameters:
    ///   - logger: The swift-log logger. Defaults to one labelled `airlock.http`.
    ///   - forwardingSession: The session that sends requests on. Defaults to a new ephemeral session.
    public init(
        logger: Logger = Logger(label: "airlock.http"),
        forwardingSession: URLSession = URLSession(configuration: .ephemeral)
    ) {
        self.logger = logger
        self.forwardingSession = forwardingSession
        let slot = Directories.loggers.reserve()
        self.slot = slot
        protocolClass = ProtocolSlot.loggingProtocolClass(for: slot)
        Directories.loggers.assign(slot, to: self)
    }

    deinit {
        Directories.loggers.release(slot)
    }

    /// Puts the logging protocol first in a configuration's `protocolClasses`, so that sessions
    /// made from it log every http and https request.
    /// - Parameter configuration: The configuration to change.
    public func install(in configuration: URLSessionConfiguration) {
        configuration.protocolClasses = [protocolClass] + (configuration.protocolClasses ?? [])
    }

    /// Makes a session whose requests are logged.
    /// - Parameters:
    ///   - configuration: The configuration to start from; it is copied. Defaults to `.default`.
    ///   - delegate: The session delegate.
    ///   - delegateQueue: The delegate queue.
    /// - Returns: A logged session.
    public func makeURLSession(
        configuration: URLSessionConfiguration = .default,
        delegate: (any URLSessionDelegate)? = nil,
        delegateQueue: OperationQueue? = nil
    ) -> URLSession {
        let copy = configuration.copy() as! URLSessionConfiguration
        install(in: copy)
        return URLSession(configuration: copy, delegate: delegate, delegateQueue: delegateQueue)
    }

    /// How credentials are shown in logs, ``redactedRequests`` and HAR exports.
    public var redaction: Redaction {
        get { redactionState.withLock { $0 } }
        set { redactionState.withLock { $0 = newValue } }
    }

    /// Every request logged, in order, as sent (not redacted).
    public var requests: [RecordedRequest] {
        journal.all
    }

    /// ``requests`` with credentials hidden.
    public var redactedRequests: [RecordedRequest] {
        let redaction = self.redaction
        return requests.map(redaction.apply)
    }

    /// Forgets the recorded requests.
    public func clearRequests() {
        journal.clear()
    }

    /// The recorded traffic as a HAR 1.2 document, redacted.
    public func exportHAR() -> Data {
        HAR.document(for: requests, redaction: redaction)
    }
}
