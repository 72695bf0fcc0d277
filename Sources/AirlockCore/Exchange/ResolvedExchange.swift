import AirlockBase
import Foundation
import HTTPTypes

/// Everything the core decided about one request, for a transport to carry out: answer it (after
/// a delay) with a response, a failure or a fault; forward it to the real network; or stop.
///
/// Adapters make no decision of their own: the unmocked policy is already applied, the response
/// chosen, its payload resolved (bytes, a file, or a failure) and its dribble plan and redirect
/// rule worked out. ``deliver(to:)`` carries the answer out — delay, load, record, dribble — and
/// the transport's ``ExchangeSink`` only writes what it is handed.
package struct ResolvedExchange<Kind: TransportKind>: Sendable {
    /// What the transport does.
    package enum Action: Sendable {
        /// Answer the client, after ``ResolvedExchange/delay``.
        case answer(Answer)
        /// Send the request to the real network and relay the answer: the `.passthrough` policy, a
        /// cassette recording (which wants the body unencoded: the transport asks for identity
        /// coding where it decompresses nothing itself), or a stub that proxies (after
        /// ``ResolvedExchange/delay``) to `target`, an absolute URL in place of the request's own.
        case forward(recording: Bool, target: String?)
        /// Stop the process with this message (the `.fatalError` policy, where the transport allows it).
        case stop(Kind.Stop)
    }

    /// How the client is answered.
    package enum Answer: Sendable {
        /// Send this response.
        case respond(PlannedResponse)
        /// Fail the request with this error — only transports that carry errors can be given one.
        case fail(Kind.Failure)
        /// Misbehave on the connection instead of answering.
        case fault(MockResponse.Fault)
    }

    /// What to do.
    package let action: Action
    /// How long to wait before answering, in seconds.
    package let delay: TimeInterval
    /// Where the outcome goes in the journal.
    package let recorder: ExchangeRecorder
    /// The stub that answered; `nil` when the unmocked policy did.
    package let stub: StubDescription?
    /// The transport the decision was made for.
    package let transport: Transport<Kind>

    /// Whether the answer is a body sent in pieces over time (a stream, a dribble, or a forwarded
    /// answer, which may be a stream), for which a transport may need to find out whether its
    /// client takes pieces.
    package var sendsBodyInPieces: Bool {
        switch action {
        case .answer(.respond(let planned)): planned.response.stream != nil || planned.response.dribble != nil
        // A forwarded answer may be a stream: its pieces go on as they arrive where they can.
        case .forward: true
        default: false
        }
    }
}

/// A response to send, and where it redirects to: the stub's response itself, carried whole
/// (status, reason, header fields, body and dribble plan are read from it, never copied).
package struct PlannedResponse: Sendable {
    /// The response to send. Its body is bytes, a file or a failure: planning turns every other
    /// kind into an action of its own.
    package let response: MockResponse
    /// Where a redirect leads, for transports that follow redirects themselves.
    package let redirect: RedirectRule?

    init(_ response: MockResponse, redirect: RedirectRule?) {
        self.response = response
        self.redirect = redirect
    }
}

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

/// The request a 3xx response leads to, as a browser or URLSession makes it.
package struct RedirectRule: Sendable, Equatable {
    /// How many redirects a chain may have before the request fails, as browsers allow.
    package static let maximumHops = 20

    /// The absolute URL of the next request.
    package let location: String
    /// The next request's method.
    package let method: String
    /// Whether the next request drops the body and its `Content-Type` and `Content-Length`.
    package let dropsBody: Bool

    /// The redirect a response asks for, if its status is 301, 302, 303, 307 or 308 and it has
    /// a `Location`: 303 always becomes GET (HEAD stays HEAD); 301 and 302 turn POST into GET, as
    /// clients do; 307 and 308 keep method and body.
    package init?(status: Int, headers: HTTPFields, requestURL: String, requestMethod: String) {
        switch status {
        case 301, 302, 303, 307, 308: break
        default: return nil
        }
        guard let location = headers[.location],
            let base = URL(string: requestURL),
            let target = URL(string: location, relativeTo: base)?.absoluteURL
        else { return nil }
        self.location = target.absoluteString
        let becomesGet = status == 303 && requestMethod != "HEAD" || (status == 301 || status == 302) && requestMethod == "POST"
        method = becomesGet ? "GET" : requestMethod
        dropsBody = becomesGet
    }
}
