import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which `HTTPMock` owns which session, so that the one `URLProtocol` class can answer each
/// session from its own mock. Entries hold the mock weakly and leave when it is released.
final class SessionDirectory: Sendable {
    static let shared = SessionDirectory()

    private struct Entry {
        weak var mock: HTTPMock?
    }

    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    func register(_ session: URLSession, for mock: HTTPMock) {
        entries.withLock { $0[ObjectIdentifier(session)] = Entry(mock: mock) }
    }

    func remove(_ session: URLSession) {
        entries.withLock { $0[ObjectIdentifier(session)] = nil }
    }

    func mock(for session: URLSession) -> HTTPMock? {
        entries.withLock { $0[ObjectIdentifier(session)]?.mock }
    }

    /// The session that created a task. Linux has no KVC, so read the task's stored `session`
    /// property through reflection (Apple platforms expose the same stored property).
    static func session(of task: URLSessionTask) -> URLSession? {
        var mirror: Mirror? = Mirror(reflecting: task)
        while let current = mirror {
            for child in current.children where child.label == "session" {
                return unwrap(child.value) as? URLSession
            }
            mirror = current.superclassMirror
        }
        return nil
    }

    private static func unwrap(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map { unwrap($0.value) } ?? nil
    }
}
