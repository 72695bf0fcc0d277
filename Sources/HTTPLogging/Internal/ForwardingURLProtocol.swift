@_spi(AirlockTransport) import AirlockCore
import Foundation
import HTTPTypes
import URLProtocolSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Who a forwarding protocol reports to: an `HTTPLogger`. It records each request in ``journal``, sends it on
/// through ``forwardingSession`` and is told about both ends of the exchange.
protocol ForwardingObserver: AnyObject, Sendable {
    /// Where requests are recorded.
    var journal: RequestJournal { get }
    /// The session that carries requests to the network.
    var forwardingSession: URLSession { get }
    /// What carries requests to the network for clients that take the body in pieces: a session
    /// made from ``forwardingSession``'s configuration, with a data delegate.
    var pieceForwarder: PieceForwarder { get }
    /// A request is about to be sent on.
    func willForward(_ request: IncomingRequest)
    /// The exchange ended: `response` and `body` when it succeeded, `error` when it failed.
    func didForward(_ request: IncomingRequest, response: HTTPURLResponse?, body: Data?, error: (any Error)?, duration: TimeInterval)
}

/// The slots of forwarding observers: each owns a `URLProtocol` subclass that reports to it.
enum ForwardingSlots {
    /// Takes a slot and returns it with the protocol class that reports to its observer.
    static func reserveSlot() -> (slot: Int, protocolClass: URLProtocol.Type) {
        let slot = Directories.forwarders.reserve()
        return (slot, ProtocolSlot.forwardingProtocolClass(for: slot))
    }

    /// Puts `observer` in its reserved slot.
    static func assign(_ slot: Int, to observer: any ForwardingObserver) {
        Directories.forwarders.assign(slot, to: observer)
    }

    /// Gives a slot back once its observer is gone.
    static func release(_ slot: Int) {
        Directories.forwarders.release(slot)
    }
}

/// The `URLProtocol` an `HTTPLogger` puts into a configuration: it records each request, sends
/// it on through the observer's forwarding session, reports the exchange, and relays the answer.
///
/// It cannot recurse into itself: the forwarding session is made from a configuration that does
/// not list it (and `URLSessionConfiguration.default` ignores globally registered protocols).
class ForwardingURLProtocol: LoadingURLProtocol, RequestBodyReading {
    /// The slot of the observer this class reports to; overridden by each slotted subclass.
    class var slot: Int { -1 }

    override func startLoading() {
        guard let observer = Directories.forwarders.owner(at: Self.slot) as? any ForwardingObserver else {
            let error = URLError(.unknown, message: "HTTPLogger: this session's HTTPLogger has been released.")
            if claimDelivery() { client?.urlProtocol(self, didFailWithError: error) }
            return
        }
        let started = Date()
        // Read here, on the session's work queue, where the task's kind can be read.
        let inPieces = clientTakesBodyInPieces(onWorkQueue: true)
        withRequestBody { loader, body in
            loader.forward(body: body, started: started, inPieces: inPieces, reportingTo: observer)
        }
    }

    private func forward(body: Data?, started: Date, inPieces: Bool, reportingTo observer: any ForwardingObserver) {
        guard var incoming = IncomingRequest(request) else {
            let error = URLError(.badURL, message: "HTTPLogger: the request has no URL with a host: \(request)")
            if claimDelivery() { client?.urlProtocol(self, didFailWithError: error) }
            return
        }
        incoming.body = body
        let recorder = observer.journal.append(incoming, at: started)
        observer.willForward(incoming)
        if inPieces {
            // A data delegate gets each piece as the network hands it over: a stream of events
            // reaches the app as it would without the logger, and is recorded with its pieces.
            forward(request, body: body, inPiecesThrough: observer.pieceForwarder) { [incoming, request] forwarded in
                // A body without a length is a stream: kept with its pieces and how it ended.
                forwarded.record(with: recorder, forwarding: request)
                observer.didForward(incoming, response: forwarded.response, body: forwarded.data, error: forwarded.error, duration: Date().timeIntervalSince(started))
            }
            return
        }
        forward(request, body: body, using: observer.forwardingSession) { [incoming, request] data, response, error in
            let http = response as? HTTPURLResponse
            if let error {
                recorder.record(.failure(.forwarding(request, failedWith: error)))
            } else {
                recorder.record(.response(status: http?.statusCode ?? 0), headers: http?.recordedFields ?? HTTPFields(), body: data ?? Data())
            }
            observer.didForward(incoming, response: http, body: data, error: error, duration: Date().timeIntervalSince(started))
        }
    }
}

/// The forwarding (logging) protocol subclass for one slot.
final class SlottedForwardingURLProtocol<Slot: SlotNumber>: ForwardingURLProtocol {
    override class var slot: Int { Slot.value }
}

/// The process's live loggers, by slot.
enum Directories {
    static let forwarders = SlotDirectory()
}

extension ProtocolSlot {
    /// The `URLProtocol` class whose requests go to the observer holding `slot`.
    static func forwardingProtocolClass(for slot: Int) -> ForwardingURLProtocol.Type {
        withSlotType(slot, ForwardingClass())
    }

    private struct ForwardingClass: Visitor {
        func visit<Slot: SlotNumber>(_: Slot.Type) -> ForwardingURLProtocol.Type { SlottedForwardingURLProtocol<Slot>.self }
    }
}
