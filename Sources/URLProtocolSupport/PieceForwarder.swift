import AirlockBase
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Forwards requests to the network through a session of its own with a data delegate, and hands
/// each piece of an answer on as it arrives — what a completion handler cannot do: it gets the
/// body when the response has ended, so a stream of server-sent events would reach the client all
/// at once, at the end.
///
/// Its session is made from a configuration (a forwarding session's): a session's delegate is
/// fixed when it is made, and swift-corelibs-foundation has no per-task delegate, so the pieces
/// of a task of another session cannot be had. That session's own delegate (if any) is not
/// called for what goes through here.
package final class PieceForwarder: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: `handlers` sits behind a Locked (pthread mutex); `session` is set once,
    // in init, and URLSession is thread-safe.

    /// What one forwarded task is told, from the session's delegate queue, in order: the
    /// response, each piece, then the end (with the error, if it failed).
    package struct Handlers: Sendable {
        package let response: @Sendable (URLResponse) -> Void
        package let piece: @Sendable (Data) -> Void
        package let end: @Sendable ((any Error)?) -> Void

        package init(response: @escaping @Sendable (URLResponse) -> Void, piece: @escaping @Sendable (Data) -> Void, end: @escaping @Sendable ((any Error)?) -> Void) {
            self.response = response
            self.piece = piece
            self.end = end
        }
    }

    private let handlers = Locked<[Int: Handlers]>([:])
    private var session: URLSession!

    /// A forwarder whose session is made from `configuration` (copied).
    package init(configuration: URLSessionConfiguration) {
        super.init()
        session = URLSession(configuration: configuration.copy() as! URLSessionConfiguration, delegate: self, delegateQueue: nil)
    }

    /// Lets the session go once its tasks have ended (it holds its delegate, this forwarder,
    /// until then).
    package func invalidate() {
        session.finishTasksAndInvalidate()
    }

    /// A task, not yet resumed, that tells `handlers` what arrives.
    package func dataTask(with request: URLRequest, handlers: Handlers) -> URLSessionDataTask {
        let task = session.dataTask(with: request)
        self.handlers.withLock { $0[task.taskIdentifier] = handlers }
        return task
    }

    package func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        handlers.withLock { $0[dataTask.taskIdentifier] }?.response(response)
        completionHandler(.allow)
    }

    package func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        handlers.withLock { $0[dataTask.taskIdentifier] }?.piece(data)
    }

    package func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        handlers.withLock { $0.removeValue(forKey: task.taskIdentifier) }?.end(error)
    }
}

/// A ``PieceForwarder`` made on first use from a session's configuration, and let go with its
/// owner: most mocks and loggers never forward a request a data delegate reads.
package final class LazyPieceForwarder: Sendable {
    private let configuration: @Sendable () -> URLSessionConfiguration
    private let made = Locked<PieceForwarder?>(nil)

    /// A forwarder that will be made from what `configuration` returns.
    package init(configuration: @escaping @Sendable () -> URLSessionConfiguration) {
        self.configuration = configuration
    }

    /// The forwarder, made now if it was not yet.
    package var forwarder: PieceForwarder {
        made.withLock { made in
            if let made { return made }
            let forwarder = PieceForwarder(configuration: configuration())
            made = forwarder
            return forwarder
        }
    }

    deinit {
        made.withLock { $0 }?.invalidate()
    }
}
