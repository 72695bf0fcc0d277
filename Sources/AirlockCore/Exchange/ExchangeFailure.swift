import AirlockBase
import Foundation

/// Why an exchange ended without the response it was meant to get: a value with the facts, whose
/// ``description`` is the message built from them.
///
/// The journal keeps it (``RecordedResponse/Outcome/failure(_:)``), each transport shows it its own
/// way (a `URLError` with the message, a `500` or `502` with it as the body), and a test switches
/// on its case instead of matching text:
///
/// ```swift
/// if case .failure(.fileMissing(let path, _, _))? = mock.requests.last?.response?.outcome {
///     print("add the fixture", path)
/// }
/// ```
public enum ExchangeFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The response reads a file that does not exist.
    /// - Parameters:
    ///   - path: The file's path as the response names it.
    ///   - owner: The response's stub, or the unmocked policy.
    ///   - workingDirectory: What a relative path resolved against.
    case fileMissing(path: String, owner: Owner, workingDirectory: String)
    /// The response reads a folder where it names a file.
    case notAFile(path: String, owner: Owner)
    /// The response's file exists but cannot be read; `reason` is the system's.
    case fileUnreadable(path: String, owner: Owner, reason: String)
    /// The response cannot be served as it was made: a stream, a WebSocket script, a template,
    /// a response closure or a value past a limit that Airlock refuses; `problem` says what and
    /// how to fix it.
    case responseUnservable(owner: Owner, problem: String)
    /// The response opens a WebSocket, which only a server can carry (a `URLProtocol` never sees
    /// a WebSocket task).
    case webSocketNeedsServer(owner: Owner)
    /// The client gave up before the answer arrived (a `URLSession`'s timeout).
    /// - Parameters:
    ///   - request: The request's method and URL, redacted.
    ///   - seconds: The client's timeout.
    ///   - waiting: What it was waiting for.
    case timedOut(request: String, after: TimeInterval, waiting: Wait)
    /// The stub fails the request with this error, as Swift prints it (``MockResponse/error(_:lifetime:delivery:)``).
    case stubError(String)
    /// A recording that only replays has no entry for the request; the text is the diagnosis.
    case replayMiss(String)
    /// A stub that proxies names a target that is not a URL.
    case invalidProxyTarget(String)
    /// The request was forwarded to the network, which failed it.
    /// - Parameters:
    ///   - target: Where it was sent, redacted.
    ///   - error: The network's error, as Swift prints it.
    case forwardFailed(target: String, error: String)
    /// A relayed stream or WebSocket reached the client whole but was not recorded: it passed the
    /// recording's limit of `limit` bytes.
    case notRecorded(Relayed, limit: Int)

    /// The response a failure belongs to.
    public enum Owner: Sendable, Hashable, CustomStringConvertible {
        /// A stub's, shown as its description (`host "api.example.com", path "/users"`).
        case stub(String)
        /// The unmocked policy's.
        case unmockedPolicy

        /// `the response for host "…", path "…"` or `the unmocked policy's response`.
        public var description: String {
            switch self {
            case .stub(let stub): "the response for \(stub)"
            case .unmockedPolicy: "the unmocked policy's response"
            }
        }
    }

    /// What a client was waiting for when it gave up.
    public enum Wait: Sendable, Hashable, CustomStringConvertible {
        /// The response, delayed this many seconds.
        case delay(TimeInterval)
        /// The next piece of a dribbled body, this many seconds apart.
        case dribble(TimeInterval)
        /// The next part of a stream, after a pause this long.
        case streamPause(TimeInterval)

        /// `its mocked response is delayed 600 s`.
        public var description: String {
            switch self {
            case .delay(let seconds): "its mocked response is delayed \(Self.seconds(seconds)) s"
            case .dribble(let seconds): "its mocked body is dribbled with \(Self.seconds(seconds)) s between pieces"
            case .streamPause(let seconds): "its mocked stream pauses \(Self.seconds(seconds)) s before a part"
            }
        }

        /// `2` or `0.5`.
        static func seconds(_ value: TimeInterval) -> String {
            value == value.rounded() ? String(Int(value)) : String(value)
        }
    }

    /// What was relayed without being recorded.
    public enum Relayed: Sendable, Hashable {
        /// A streamed body.
        case stream
        /// A WebSocket conversation's frames.
        case webSocket
    }

    /// What went wrong and how to fix it.
    public var description: String {
        switch self {
        case .fileMissing(let path, let owner, let workingDirectory):
            "Airlock: \(owner) reads the file \(path), which does not exist. Relative paths in Swift "
                + "resolve against the working directory \(workingDirectory) "
                + "(use .file(named:extension:in: Bundle.module) for test resources); in stub files, "
                + "against the stub file's folder."
        case .notAFile(let path, let owner):
            "Airlock: \(owner) reads \(path), which is a folder, not a file. Name a file inside it."
        case .fileUnreadable(let path, let owner, let reason):
            "Airlock: \(owner) reads the file \(path), which cannot be read (\(reason)). Check its permissions."
        case .responseUnservable(let owner, let problem):
            "Airlock: \(owner) cannot be served: \(problem)"
        case .webSocketNeedsServer:
            "Airlock: the stub answers with a WebSocket (MockResponse.webSocket), which a URLProtocol cannot carry: "
                + "URLSessionWebSocketTask never reaches a URLProtocol. Serve the stub with MockServer (or airlock serve) "
                + "and connect the WebSocket client to server.baseURL (ws://127.0.0.1:<port>/…)."
        case .timedOut(let request, let seconds, let waiting):
            "HTTPMock: \(request) timed out after \(Wait.seconds(seconds)) s: \(waiting), and URLSession fails a request "
                + "that receives nothing for its timeout (the request's timeoutInterval, else the session's timeoutIntervalForRequest). "
                + "Shorten the delay, or raise the timeout, to get the response."
        case .stubError(let error):
            error
        case .replayMiss(let diagnosis):
            diagnosis
        case .invalidProxyTarget(let target):
            "Airlock: the proxy target \(target) is not a URL"
        case .forwardFailed(let target, let error):
            "Airlock: passthrough to \(target) failed: \(error)"
        case .notRecorded(.stream, let limit):
            "Airlock: the stream was relayed to the client, but not recorded: its body passed the limit of \(limit) bytes"
        case .notRecorded(.webSocket, let limit):
            "Airlock: the WebSocket was relayed to the client, but not recorded: its frames passed the limit of \(limit) bytes"
        }
    }

    /// The same failure with every free text in it — paths, problems, errors, targets —
    /// passed through `transform` (a redaction); the numbers and cases stay.
    package func mapText(_ transform: (String) -> String) -> ExchangeFailure {
        switch self {
        case .fileMissing(let path, let owner, let workingDirectory):
            .fileMissing(path: transform(path), owner: owner.mapText(transform), workingDirectory: transform(workingDirectory))
        case .notAFile(let path, let owner):
            .notAFile(path: transform(path), owner: owner.mapText(transform))
        case .fileUnreadable(let path, let owner, let reason):
            .fileUnreadable(path: transform(path), owner: owner.mapText(transform), reason: transform(reason))
        case .responseUnservable(let owner, let problem):
            .responseUnservable(owner: owner.mapText(transform), problem: transform(problem))
        case .webSocketNeedsServer(let owner):
            .webSocketNeedsServer(owner: owner.mapText(transform))
        case .timedOut(let request, let seconds, let waiting):
            .timedOut(request: transform(request), after: seconds, waiting: waiting)
        case .stubError(let error):
            .stubError(transform(error))
        case .replayMiss(let diagnosis):
            .replayMiss(transform(diagnosis))
        case .invalidProxyTarget(let target):
            .invalidProxyTarget(transform(target))
        case .forwardFailed(let target, let error):
            .forwardFailed(target: transform(target), error: transform(error))
        case .notRecorded:
            self
        }
    }
}

extension ExchangeFailure.Owner {
    /// The owner of a response: its stub, or the unmocked policy when there is none.
    package init(_ stub: StubDescription?) {
        self = stub.map { .stub($0.description) } ?? .unmockedPolicy
    }

    func mapText(_ transform: (String) -> String) -> Self {
        switch self {
        case .stub(let stub): .stub(transform(stub))
        case .unmockedPolicy: self
        }
    }
}
