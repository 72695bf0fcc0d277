import AirlockBase
import Atomics
import Foundation

/// A protocol carried in HTTP whose messages stubs are written in another form: gRPC's protobuf
/// messages, written as JSON (the `AirlockGRPC` module's). The core names no such protocol; a
/// module installs its transcoder on a registry (``MockRegistry/install(_:)``), and the registry
/// asks it about each request before any stub sees the request.
///
/// A transcoder that takes a request returns a ``Transcoding``: the request as stubs match it and
/// the journal keeps it, and how a response written in the stubs' form goes onto the wire. What
/// the exchange then does — the stub's delay, stream pauses, webhooks, faults — is the core's as
/// for any request; the transcoder only changes the form of what comes in and goes out.
package protocol BodyTranscoder: Sendable {
    /// The transcoding of `request`, or `nil` when the request is not this transcoder's.
    func transcode(_ request: IncomingRequest) -> Transcoding?
}

/// What a ``BodyTranscoder`` made of one request.
package struct Transcoding: Sendable {
    /// The request as stubs match it, templates read it and the journal keeps it.
    package var request: IncomingRequest
    /// The response as the wire carries it, from a response in the stubs' form: a stub's, the
    /// unmocked policy's, the core's answer to a request no stub answered (`404` with the
    /// diagnosis as text), a replay miss (`502`), a failure to serve (`500`), or ``refusal``.
    /// A response that is not a body — a fault, a proxy, an error — is returned as it is.
    package let encode: @Sendable (MockResponse) -> MockResponse
    /// The answer to give, in the stubs' form, instead of looking for a stub: the request cannot
    /// be read in the protocol's form (a broken message). The request is journalled as
    /// ``request`` says.
    package let refusal: MockResponse?
    /// The response as the journal and a recording keep it, from the response as the wire had it
    /// (a stub's answer or a real server's): in the stubs' form, so that a cassette replays it
    /// through ``encode``; `nil` keeps the wire's form.
    package let record: (@Sendable (RecordedResponse) -> RecordedResponse)?

    /// A transcoding.
    package init(
        request: IncomingRequest, encode: @escaping @Sendable (MockResponse) -> MockResponse, refusal: MockResponse? = nil,
        record: (@Sendable (RecordedResponse) -> RecordedResponse)? = nil
    ) {
        self.request = request
        self.encode = encode
        self.refusal = refusal
        self.record = record
    }
}

/// The transcoders installed on a registry: a flag read without a lock by every request, and the
/// list behind a lock read only when the flag is set.
final class InstalledTranscoders: Sendable {
    private let any = ManagedAtomic(false)
    private let list = Locked<[any BodyTranscoder]>([])

    func install(_ transcoder: any BodyTranscoder) {
        list.withLock { $0.append(transcoder) }
        any.store(true, ordering: .releasing)
    }

    /// The first transcoding an installed transcoder makes of `request`.
    func transcoding(of request: IncomingRequest) -> Transcoding? {
        guard any.load(ordering: .acquiring) else { return nil }
        for transcoder in list.withLock({ $0 }) {
            if let transcoding = transcoder.transcode(request) { return transcoding }
        }
        return nil
    }
}

extension MockRegistry {
    /// Installs `transcoder`: from now on, each request it takes is matched, journalled and
    /// answered in the form it transcodes to (see ``BodyTranscoder``). Transcoders installed
    /// earlier are asked first.
    package func install(_ transcoder: any BodyTranscoder) {
        transcoders.install(transcoder)
    }
}
