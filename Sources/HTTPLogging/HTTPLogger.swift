@_spi(AirlockTransport) import AirlockCore
import Foundation
import Logging
import URLProtocolSupport
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
public final class HTTPLogger: Journaling, ForwardingObserver {
    /// Where exchanges are logged.
    public let logger: Logger
    /// The session that carries requests to the network. It must not list this logger's
    /// protocol; the default, an ephemeral session, does not.
    ///
    /// A request of a task with a data delegate goes through a session made from this one's
    /// configuration instead, with a delegate of the logger's, so that each piece of a stream
    /// (server-sent events, a chunked body) reaches the task as it arrives, and the journal keeps
    /// the pieces; this session's own delegate is not called for it. A task with a completion
    /// handler gets the whole body at the end, as swift-corelibs-foundation would hand it only
    /// the last piece.
    public let forwardingSession: URLSession

    /// Carries requests of clients that take the body in pieces (a data delegate), so that each
    /// piece reaches them as it arrives: a session made from ``forwardingSession``'s configuration.
    var pieceForwarder: PieceForwarder { pieceForwarders.forwarder }
    private let pieceForwarders: LazyPieceForwarder

    /// Where the logged requests are recorded: the journal type of the mocks.
    @_spi(AirlockTransport) public let journal = RequestJournal()
    private let slot: Int
    private let protocolClass: URLProtocol.Type

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
        pieceForwarders = LazyPieceForwarder { [forwardingSession] in forwardingSession.configuration }
        // The slot is taken before `self` exists and filled in once it does.
        (slot, protocolClass) = ForwardingSlots.reserveSlot()
        ForwardingSlots.assign(slot, to: self)
    }

    deinit {
        ForwardingSlots.release(slot)
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

    // MARK: ForwardingObserver

    func willForward(_ request: IncomingRequest) {
        let redaction = self.redaction
        logger.debug(
            "→ \(request.method) \(redaction.url(request.url))",
            metadata: [
                "http.headers": .dictionary(
                    Dictionary(request.headers.map { ($0.name, .string(redaction.header($0.name, $0.value))) }, uniquingKeysWith: { $1 })
                ),
                "http.request.body.size": "\(request.body?.count ?? 0)",
            ]
        )
    }

    func didForward(_ request: IncomingRequest, response: HTTPURLResponse?, body: Data?, error: (any Error)?, duration: TimeInterval) {
        let method = request.method
        let url = redaction.url(request.url)
        let milliseconds = Int((duration * 1000).rounded())
        if let error {
            // The error's text often quotes the URL: it goes through the same pass as the URL,
            // and loses every secret value the request carried.
            let secrets = redaction.secretValues(in: RecordedRequest(sequence: 0, request: request, date: Date()))
            let reason = redaction.errorText(error.localizedDescription, secrets: secrets)
            logger.error(
                "\(method) \(url) failed after \(milliseconds) ms: \(reason)",
                metadata: ["http.method": "\(method)", "url.full": "\(url)", "http.duration_ms": "\(milliseconds)"]
            )
            return
        }
        let status = response?.statusCode ?? 0
        let bytes = body?.count ?? 0
        logger.info(
            "\(method) \(url) → \(status), \(bytes) bytes, \(milliseconds) ms",
            metadata: [
                "http.method": "\(method)",
                "url.full": "\(url)",
                "http.response.status_code": "\(status)",
                "http.response.body.size": "\(bytes)",
                "http.duration_ms": "\(milliseconds)",
            ]
        )
    }
}
