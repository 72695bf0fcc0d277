import AirlockBase
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A data delegate that keeps each piece of a body with when it came, and tells when the task
/// ends: how the stream tests watch a `URLSession` receive parts one by one.
// @unchecked Sendable: `pieces` sits behind a Locked; the rest is immutable or Sendable.
package final class PieceCollector: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// Each piece and when it arrived.
    package let pieces = Locked<[(data: Data, at: Date)]>([])
    private let onPiece: @Sendable (Data) -> Void
    private let finished: AsyncStream<(any Error)?>.Continuation
    /// Yields the task's error (or `nil`) once, when it ends.
    package let ended: AsyncStream<(any Error)?>

    /// - Parameter onPiece: Sees each piece as it arrives, on the session's delegate queue.
    package init(onPiece: @escaping @Sendable (Data) -> Void = { _ in }) {
        self.onPiece = onPiece
        (ended, finished) = AsyncStream.makeStream()
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        pieces.withLock { $0.append((data, Date())) }
        onPiece(data)
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        finished.yield(error)
        finished.finish()
    }

    /// Each piece as UTF-8 text.
    package var texts: [String] { pieces.withLock { $0.map { String(decoding: $0.data, as: UTF8.self) } } }
}
