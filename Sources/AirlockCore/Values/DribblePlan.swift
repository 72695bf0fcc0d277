import Foundation

/// How a dribbled body is paced: the pieces and the time between them.
package struct DribblePlan: Sendable, Hashable {
    /// How many pieces, at most.
    package let chunks: Int
    /// From the first piece to the last, in seconds.
    package let seconds: TimeInterval

    package init(chunks: Int, seconds: TimeInterval) {
        self.chunks = chunks
        self.seconds = seconds
    }

    /// The body cut into at most `chunks` pieces of equal size (the last may be shorter), and
    /// the time between two pieces. A body of one byte or none is one piece.
    package func pieces(of body: Data) -> (pieces: [Data], interval: TimeInterval) {
        guard body.count > 1 else { return ([body], 0) }
        let count = Swift.min(chunks, body.count)
        let size = (body.count + count - 1) / count
        let start = body.startIndex
        let pieces = stride(from: 0, to: body.count, by: size).map { offset in
            body.subdata(in: (start + offset)..<(start + Swift.min(body.count, offset + size)))
        }
        return (pieces, pieces.count > 1 ? seconds / Double(pieces.count - 1) : 0)
    }
}
