import AirlockBase
import Foundation

/// What takes the requests no stub answers, in place of the unmocked policy: a recording, such as
/// a cassette, that forwards them to the real service and records each exchange while it records,
/// and fails each as a replay miss while it does not.
///
/// The registry names no format: a recording plugs in here (``MockRegistry/unmatchedHandler``).
package protocol UnmatchedRequestHandler: AnyObject, Sendable {
    /// Whether a request no stub answers is forwarded and recorded (`true`), or fails as a
    /// replay miss (`false`).
    var isRecording: Bool { get }

    /// Records a forwarded exchange once it has ended: the request as it arrived, its response
    /// attached.
    func record(_ exchange: RecordedRequest)

    /// Keeps a replay miss, for the test frameworks to report.
    /// - Parameters:
    ///   - request: The request, redacted as the mock's messages show it.
    ///   - message: The diagnosis the test is shown: the request and the nearest entries.
    func recordMiss(request: RecordedRequest, message: String)

    /// A line the unmatched-request diagnosis ends with: how to record what is missing.
    var unmatchedHint: String { get }
}

extension MockRegistry {
    /// What takes the requests no stub answers in place of the unmocked policy, if anything does
    /// (a cassette). Setting one replaces the one set before.
    package var unmatchedHandler: (any UnmatchedRequestHandler)? {
        get { state.withLock { $0.unmatchedHandler } }
        set { state.withLock { $0.unmatchedHandler = newValue } }
    }
}
