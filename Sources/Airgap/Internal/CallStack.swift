import AirlockCore
import Foundation
import Runtime

/// Captures symbolicated stacks for violations, innermost first, without Airgap's own frames.
///
/// Captures run one at a time and share one map of the process's loaded images, read at the first
/// violation: reading `/proc/self/maps` and every image's ELF header anew on several threads at
/// once crashed the Swift runtime's backtracer (a bad pointer dereference in `getElfImageInfo`).
enum CallStack {
    private static let lock = NSLock()
    // Guarded by `lock`.
    nonisolated(unsafe) private static var images: ImageMap?

    /// Captures the current thread's stack.
    static func capture() -> [String] {
        captureWithUserFrame().frames
    }

    /// Captures the current thread's stack, and the first frame with a source location outside
    /// Airgap and the toolchain's libraries: the user's code that made the call, when it is on
    /// this thread.
    static func captureWithUserFrame() -> (frames: [String], userFrame: UserFrame?) {
        lock.lock()
        defer { lock.unlock() }
        guard let backtrace = captureLocked(), let symbolicated = backtrace.symbolicated() else {
            return (Thread.callStackSymbols, nil)
        }
        let frames = trimmed(symbolicated.frames.map(describe).filter { $0 != "null" })
        let user = symbolicated.frames.lazy.compactMap { frame -> UserFrame? in
            guard let location = frame.symbol?.sourceLocation, location.line > 0 else { return nil }
            let path = location.path
            guard path.hasPrefix("/"), !foreignMarkers.contains(where: { path.contains($0) }) else { return nil }
            return UserFrame(path: path, line: Int(location.line))
        }.first
        return (frames, user)
    }

    /// Paths that are not the user's code: Airgap's own sources and the toolchain's libraries.
    private static let foreignMarkers = [
        "/Sources/Airgap/", "/Sources/CAirgap/", "/Sources/AirgapPreload/", "swift-corelibs", "swift-testing",
        "/swift/stdlib/", "/swift-foundation", "/lib/swift/", "<compiler-generated>",
    ]

    /// Captures the current thread's stack, to symbolicate later with ``symbolicate(_:)``.
    static func captureBacktrace() -> Backtrace? {
        lock.lock()
        defer { lock.unlock() }
        return captureLocked()
    }

    private static func captureLocked() -> Backtrace? {
        if images == nil {
            images = ImageMap.capture()
        }
        return try? Backtrace.capture(limit: 64, images: images)
    }

    /// Symbolicates a stack captured earlier (used off the URLProtocol queue).
    static func symbolicate(_ backtrace: Backtrace) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return symbolicateLocked(backtrace)
    }

    private static func symbolicateLocked(_ backtrace: Backtrace) -> [String] {
        guard let symbolicated = backtrace.symbolicated() else {
            return Thread.callStackSymbols
        }
        let frames = symbolicated.frames.map(describe).filter { $0 != "null" }
        return trimmed(frames)
    }

    private static func describe(_ frame: SymbolicatedBacktrace.Frame) -> String {
        guard let symbol = frame.symbol else {
            return "\(frame.captured.adjustedProgramCounter)"
        }
        var text = "\(symbol.name) + \(symbol.offset)"
        if let location = symbol.sourceLocation {
            let file = (location.path as NSString).lastPathComponent
            text += " at \(file):\(location.line)"
        }
        return text
    }

    /// Starts at the intercepted `connect` / `getaddrinfo` when present; otherwise drops the
    /// leading frames that belong to Airgap itself.
    static func trimmed(_ frames: [String]) -> [String] {
        if let hook = frames.firstIndex(where: { $0.hasPrefix("connect + ") || $0.hasPrefix("getaddrinfo + ") }) {
            return Array(frames[hook...])
        }
        let ownMarkers = ["CallStack.", "Airgap.", "AirgapURLProtocol", "SocketGuard", "airgap_"]
        let firstForeign = frames.firstIndex { frame in !ownMarkers.contains { frame.contains($0) } }
        return Array(frames[(firstForeign ?? 0)...])
    }
}

/// Where the user's code made a call that Airgap reported: an absolute source path and a line.
struct UserFrame: Sendable, Equatable {
    let path: String
    let line: Int
}
