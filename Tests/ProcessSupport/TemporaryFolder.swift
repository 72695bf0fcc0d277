import Foundation

/// A folder of its own under the temporary directory, removed with everything in it when the last
/// reference goes. A suite keeps one in a stored property: Swift Testing makes a suite instance
/// per test, so each test gets a fresh folder and leaves nothing behind when it ends.
public final class TemporaryFolder: Sendable {
    /// The folder (created by whoever writes into it first).
    public let url: URL

    /// A folder named `<prefix>-<UUID>`.
    public init(_ prefix: String) {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
