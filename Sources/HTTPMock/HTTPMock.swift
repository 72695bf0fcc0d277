@_spi(AirlockTransport) import AirlockCore
import Foundation
import URLProtocolSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Mocks HTTP for code that uses `URLSession`: queue responses for hosts and paths, hand the
/// mock's ``urlSession`` to the code under test, and every request it makes is answered from the
/// queues — or by the ``unmockedPolicy`` when nothing matches.
///
/// ```swift
/// let mock = HTTPMock()
/// mock.addResponses(forPath: "/user", host: "api.example.com") {
///     MockResponse.encodable(User(id: 1, name: "Alice"))
///     MockResponse.empty(status: .notFound)
/// }
/// let (data, response) = try await mock.urlSession.data(from: URL(string: "https://api.example.com/user")!)
/// ```
///
/// Each instance has its own session, queues, policy and passthrough session, so tests that run in
/// parallel each create their own `HTTPMock()` and never see each other's responses. ``shared``
/// is one process-wide instance, not a hook: it too answers only the requests of its own
/// ``urlSession`` (and of the sessions it made), which you must still hand to the code under test,
/// and tests that use it share its queues.
///
/// Code that calls `URLSession.shared` itself is answered inside ``intercepting(isolation:_:)``
/// (or a test with the `.httpMock` trait of HTTPMockTesting), per task, so tests in parallel each
/// reach their own mock. A session the code makes for itself from `.default` or `.ephemeral` is
/// not reached on Linux: change the code to take a `URLSession` (a parameter, an initializer
/// argument, a dependency container) and pass it ``urlSession``; code that takes a base URL can
/// instead be pointed at a `MockServer` (the `MockServer` product), which serves the same stubs on
/// a loopback port.
///
/// Keep the instance alive for as long as its `urlSession` is used: requests on the session of a
/// released mock fail with a `URLError` that says so.
public final class HTTPMock: Mocking {
    /// One process-wide instance, for tests that want a mock they can reach from anywhere.
    ///
    /// It intercepts nothing by itself: like any instance, it answers the requests of its
    /// ``urlSession``, so the code under test must still be given `HTTPMock.shared.urlSession`.
    /// Code that calls `URLSession.shared` is reached only inside its
    /// ``intercepting(isolation:_:)`` (for tests in parallel, prefer `@Test(.httpMock)`). Its queues
    /// live as long as the process: call ``clearQueues()`` between tests that use it, and do not
    /// use it from tests that run in parallel.
    public static let shared = HTTPMock()

    /// A real `URLSession` whose requests this mock answers. Inject it into the code under test.
    public let urlSession: URLSession

    /// The session that carries unmocked requests to the network when ``unmockedPolicy`` is
    /// `.passthrough`, and recorded ones.
    ///
    /// A request of a task with a data delegate goes through a session made from this one's
    /// configuration instead, with a delegate of Airlock's, so that each piece of a stream
    /// reaches the task as it arrives (swift-corelibs-foundation has no per-task delegate); this
    /// session's own delegate is not called for it.
    public let passthroughSession: URLSession

    /// Carries `.passthrough` and recorded requests of clients that take the body in pieces (a
    /// data delegate), so that each piece of a stream reaches them as it arrives: a session made
    /// from ``passthroughSession``'s configuration, with a data delegate of its own.
    let pieceForwarders: LazyPieceForwarder

    /// The stubs, queues, policy and journal, shared with any other transport that serves this
    /// mock (`MockServer(mock: mock)`).
    @_spi(AirlockTransport) public let registry = MockRegistry(snippetStyle: .swift)

    /// The webhooks still waiting for their delay: released with the mock, each is recorded as
    /// not sent, so a test's webhook never reaches a later test.
    let waitingWebhooks = WaitingWebhooks(notSent: "not sent: the mock was released before its delay had passed")

    /// This mock's slot in the directory, which names its URLProtocol subclass.
    private let slot: Int
    private let protocolClass: MockURLProtocol.Type

    /// Creates an independent mock with its own session, queues and policy.
    ///
    /// - Parameter passthroughSession: The session for `.passthrough` requests. Defaults to a new
    ///   ephemeral session, separate for each instance.
    public init(passthroughSession: URLSession = URLSession(configuration: .ephemeral)) {
        self.passthroughSession = passthroughSession
        pieceForwarders = LazyPieceForwarder { [passthroughSession] in passthroughSession.configuration }
        // The slot is taken before `self` exists and filled in once it does.
        let slot = Directories.mocks.reserve()
        self.slot = slot
        protocolClass = ProtocolSlot.mockProtocolClass(for: slot)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [protocolClass]
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        urlSession = URLSession(configuration: configuration)
        // The core never prints; for Swift users, rejected stubs and warnings go to standard error.
        registry.report { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
        Directories.mocks.assign(slot, to: self)
    }

    /// Creates a mock that replays a cassette and, while the cassette's mode records, sends what
    /// it cannot answer through ``passthroughSession`` and records the exchange.
    ///
    /// ```swift
    /// let cassette = try Cassette(contentsOf: URL(fileURLWithPath: "Fixtures/users.har"))
    /// let mock = HTTPMock(cassette: cassette)
    /// ```
    ///
    /// - Parameters:
    ///   - cassette: The cassette to replay and record into.
    ///   - passthroughSession: The session that carries recorded requests to the network.
    public convenience init(cassette: Cassette, passthroughSession: URLSession = URLSession(configuration: .ephemeral)) {
        self.init(passthroughSession: passthroughSession)
        insert(cassette)
    }

    deinit {
        // The sessions are left valid: code may still hold one, and using an invalidated session
        // crashes. Their requests now fail with a URLError that says the mock was released. The
        // webhooks still waiting are recorded as not sent as `waitingWebhooks` goes with it.
        Directories.mocks.release(slot)
    }

    /// Makes another session that this mock answers, for code that needs its own configuration,
    /// a delegate (redirect, progress or authentication callbacks) or a delegate queue.
    ///
    /// ```swift
    /// let session = mock.makeURLSession(configuration: .default, delegate: progressTracker)
    /// ```
    ///
    /// The mock's protocol goes first in the configuration's `protocolClasses`, so it answers
    /// every http and https request of the session.
    ///
    /// - Parameters:
    ///   - configuration: The configuration to start from; it is copied, not changed.
    ///     Defaults to `.ephemeral`.
    ///   - delegate: The session delegate.
    ///   - delegateQueue: The queue for delegate calls; `nil` makes a serial queue.
    /// - Returns: A session whose requests this mock answers while the mock is alive.
    public func makeURLSession(
        configuration: URLSessionConfiguration = .ephemeral,
        delegate: (any URLSessionDelegate)? = nil,
        delegateQueue: OperationQueue? = nil
    ) -> URLSession {
        let copy = configuration.copy() as! URLSessionConfiguration
        copy.protocolClasses = [protocolClass] + (copy.protocolClasses ?? [])
        return URLSession(configuration: copy, delegate: delegate, delegateQueue: delegateQueue)
    }
}
