import AirlockCore
import Foundation
import Runtime

/// A call stack as captured where a violation happened: raw return addresses, symbolicated
/// later by ``CallStack/symbolicate(_:)``.
struct CapturedStack: Sendable {
    /// `nil` when the runtime could not unwind the stack.
    let backtrace: Backtrace?
    /// What to show when there is no backtrace.
    let fallback: [String]
}

/// A symbolicated call stack: frames innermost first, without Airgap's own, and the user's frame
/// that made the call.
struct SymbolicatedStack: Sendable {
    let frames: [String]
    let userFrame: UserFrame?
}

/// Captures call stacks for violations cheaply, and symbolicates them later, once per distinct
/// stack.
///
/// Capturing only walks the stack (microseconds), so a blocked call fails at once. Symbolicating
/// reads the images' symbol tables and line programs, which takes from a tenth of a second to
/// seconds in a large test binary; it runs on one thread of its own (``SymbolicationWorker``),
/// where the runtime keeps what it read of each image, and each distinct stack is symbolicated
/// once (the result is cached by its return addresses).
enum CallStack {
    /// Captures the current thread's stack: return addresses only.
    static func capture() -> CapturedStack {
        if let backtrace = try? Backtrace.capture(limit: 64) {
            return CapturedStack(backtrace: backtrace, fallback: [])
        }
        return CapturedStack(backtrace: nil, fallback: Thread.callStackSymbols)
    }

    /// The symbolicated stacks seen so far, by return addresses. Read by any thread, written by
    /// the symbolication worker.
    private static let cache = Locked<[[Backtrace.Address]: SymbolicatedStack]>([:])
    /// Distinct stacks kept at most (a suite has a few dozen call sites that reach the network).
    private static let cacheLimit = 4096

    private static func key(_ backtrace: Backtrace) -> [Backtrace.Address] {
        backtrace.frames.map(\.adjustedProgramCounter)
    }

    /// The stack symbolicated, when this same stack was symbolicated before; never waits.
    static func cachedSymbolication(_ stack: CapturedStack) -> SymbolicatedStack? {
        guard let backtrace = stack.backtrace else { return SymbolicatedStack(frames: stack.fallback, userFrame: nil) }
        let key = key(backtrace)
        return cache.withLock { $0[key] }
    }

    /// Symbolicates `stack` on the symbolication worker (waiting for it), or returns the cached
    /// result.
    static func symbolicate(_ stack: CapturedStack) -> SymbolicatedStack {
        guard let backtrace = stack.backtrace else { return SymbolicatedStack(frames: stack.fallback, userFrame: nil) }
        let key = key(backtrace)
        if let cached = cache.withLock({ $0[key] }) { return cached }
        return SymbolicationWorker.shared.perform {
            if let cached = cache.withLock({ $0[key] }) { return cached }
            let result = symbolicateOnWorker(backtrace)
            cache.withLock { cache in
                if cache.count >= cacheLimit { cache.removeAll() }
                cache[key] = result
            }
            return result
        }
    }

    /// Runs on the worker only: the runtime's symbolicator is not safe to run on several threads
    /// at once (reading `/proc/self/maps` and every image's ELF header on several threads crashed
    /// it, a bad pointer dereference in `getElfImageInfo`). The image map is read anew for each
    /// new stack, so that libraries loaded since are known.
    private static func symbolicateOnWorker(_ backtrace: Backtrace) -> SymbolicatedStack {
        guard let symbolicated = backtrace.symbolicated(with: ImageMap.capture()) else {
            return SymbolicatedStack(frames: backtrace.frames.map { "\($0.adjustedProgramCounter)" }, userFrame: nil)
        }
        let frames = trimmed(symbolicated.frames.map(describe).filter { $0 != "null" })
        let user = symbolicated.frames.lazy.compactMap { frame -> UserFrame? in
            guard let location = frame.symbol?.sourceLocation, location.line > 0 else { return nil }
            let path = location.path
            guard path.hasPrefix("/"), !foreignMarkers.contains(where: { path.contains($0) }) else { return nil }
            return UserFrame(path: path, line: Int(location.line))
        }.first
        return SymbolicatedStack(frames: frames, userFrame: user)
    }

    /// Paths that are not the user's code: Airgap's own sources and the toolchain's libraries.
    private static let foreignMarkers = [
        "/Sources/Airgap/", "/Sources/CAirgap/", "/Sources/AirgapPreload/", "swift-corelibs", "swift-testing",
        "/swift/stdlib/", "/swift-foundation", "/lib/swift/", "<compiler-generated>",
    ]

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
        let ownMarkers = ["CallStack.", "Airgap.", "AirgapURLProtocol", "SocketGuard", "ViolationPipeline", "airgap_"]
        let firstForeign = frames.firstIndex { frame in !ownMarkers.contains { frame.contains($0) } }
        return Array(frames[(firstForeign ?? 0)...])
    }
}

/// Where the user's code made a call that Airgap reported: an absolute source path and a line.
struct UserFrame: Sendable, Equatable {
    let path: String
    let line: Int
}
