import Foundation

/// The journal entry a transport reports a request's outcome to — what was delivered, or how it
/// failed — so that every transport records outcomes the same way.
package struct JournalEntry: Sendable {
    package let registry: MockRegistry
    package let sequence: Int
    /// When the request reached the mock.
    package let started: Date

    package init(registry: MockRegistry, sequence: Int, started: Date) {
        self.registry = registry
        self.sequence = sequence
        self.started = started
    }

    /// Records a delivered response.
    package func record(status: Int, headers: [String: String], body: Data) {
        registry.record(
            RecordedResponse(status: status, headers: headers, body: body, error: nil, duration: Date().timeIntervalSince(started)),
            forSequence: sequence
        )
    }

    /// Records a failure: an error, or a fault acted out instead of a response.
    package func record(failure: String) {
        registry.record(
            RecordedResponse(status: nil, headers: [:], body: Data(), error: failure, duration: Date().timeIntervalSince(started)),
            forSequence: sequence
        )
    }
}

extension MockResponse {
    /// The `.notFound` policy's answer: 404 with the unmatched-request message.
    package static func unmatched(_ message: String) -> MockResponse {
        .plaintext(message + "\n", status: .notFound, headers: ["X-HTTPMock-Unmatched": "true"])
    }
}
