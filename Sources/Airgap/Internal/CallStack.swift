import AirlockBase
import CAirgap
import Foundation

#if canImport(Runtime)
import Runtime
#endif

/// A call stack as captured where a violation happened: raw return addresses, innermost first,
/// symbolicated later by ``CallStack/symbolicate(_:)``.
struct CapturedStack: Sendable {
    let addresses: [UInt]
}

/// A violation's call stack: frames given as text (a child's line, a decoded report, a
/// violation made in code), or return addresses captured where the violation happened and
/// symbolicated the first time anyone reads them (``frames``, ``userFrame``), never before.
final class ViolationStack: Sendable {
    private let captured: CapturedStack?
    /// The symbolicated stack, once read (or the frames given).
    private let symbolicated: Locked<SymbolicatedStack?>

    /// A stack of frames given as text.
    init(frames: [String]) {
        captured = nil
        symbolicated = Locked(SymbolicatedStack(frames: frames, userFrame: nil))
    }

    /// A stack of return addresses, symbolicated when first read.
    init(captured: CapturedStack) {
        self.captured = captured
        symbolicated = Locked(nil)
    }

    /// The frames, innermost first (symbolicates the captured addresses on first use).
    var frames: [String] {
        resolved.frames
    }

    /// The user's frame that made the call, when known (symbolicates on first use).
    var userFrame: UserFrame? {
        resolved.userFrame
    }

    /// The user's frame, only when this stack was symbolicated before (here or elsewhere, the
    /// same return addresses); never symbolicates.
    var cachedUserFrame: UserFrame? {
        if let done = symbolicated.withLock({ $0 }) { return done.userFrame }
        return captured.flatMap(CallStack.cachedSymbolication)?.userFrame
    }

    private var resolved: SymbolicatedStack {
        if let done = symbolicated.withLock({ $0 }) { return done }
        // Outside the lock: symbolicating waits for the symbolication worker.
        let result = captured.map(CallStack.symbolicate) ?? SymbolicatedStack(frames: [], userFrame: nil)
        symbolicated.withLock { $0 = result }
        return result
    }
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
/// Capturing only walks the stack (microseconds), so a violation is reported (and the blocked
/// call fails) at once. Symbolicating, when a stack is first read (``ViolationStack``),
/// reads the images' symbol tables and line programs, which takes from a tenth of a second to
/// seconds in a large test binary; it runs on one thread of its own (``SymbolicationWorker``),
/// where the runtime keeps what it read of each image, and each distinct stack is symbolicated
/// once (the result is cached by its return addresses).
enum CallStack {
    /// Captures the current thread's stack: return addresses only, through the C library's
    /// unwinder. (The runtime's own `Backtrace.capture` reads the image map at each capture and
    /// builds each image's symbol table once per thread: about 100 ms on every new thread that
    /// reports, in a large test binary.)
    static func capture() -> CapturedStack {
        withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: 64) { buffer in
            let count = Int(airgap_capture_stack(buffer.baseAddress, 64))
            return CapturedStack(addresses: buffer.prefix(max(count, 0)).map { UInt(bitPattern: $0) })
        }
    }

    /// Loads the C library's unwinder (its first use loads a library), off any violation's path.
    static func prepare() {
        _ = capture()
    }

    /// The symbolicated stacks seen so far, by return addresses. Read by any thread, written by
    /// the symbolication worker.
    private static let cache = Locked<[[UInt]: SymbolicatedStack]>([:])
    /// Distinct stacks kept at most (a suite has a few dozen call sites that reach the network).
    private static let cacheLimit = 4096

    /// The stack symbolicated, when this same stack was symbolicated before; never waits.
    static func cachedSymbolication(_ stack: CapturedStack) -> SymbolicatedStack? {
        cache.withLock { $0[stack.addresses] }
    }

    /// Symbolicates `stack` on the symbolication worker (waiting for it), or returns the cached
    /// result.
    static func symbolicate(_ stack: CapturedStack) -> SymbolicatedStack {
        let key = stack.addresses
        if let cached = cache.withLock({ $0[key] }) { return cached }
        return SymbolicationWorker.shared.perform {
            if let cached = cache.withLock({ $0[key] }) { return cached }
            let result = symbolicateOnWorker(key)
            cache.withLock { cache in
                if cache.count >= cacheLimit { cache.removeAll() }
                cache[key] = result
            }
            return result
        }
    }

#if canImport(Runtime)
    /// The runtime's `Backtrace` for raw return addresses, through its public `Codable` form: the
    /// architecture and the addresses in Compact Backtrace Format (version 0, 64-bit words, one
    /// absolute return address per frame, big-endian), base64-encoded.
    static func backtrace(returnAddresses addresses: [UInt]) -> Backtrace? {
        guard MemoryLayout<UInt>.size == 8 else { return nil }
        var bytes: [UInt8] = [0b0000_0010]
        for address in addresses {
            bytes.append(0b0010_1111)   // ra, absolute, 8 bytes
            withUnsafeBytes(of: UInt64(address).bigEndian) { bytes.append(contentsOf: $0) }
        }
        bytes.append(0)   // end
        #if arch(x86_64)
        let architecture = "x86_64"
        #elseif arch(arm64)
        let architecture = "arm64"
        #else
        let architecture = "unknown"
        #endif
        let json = #"{"architecture":"\#(architecture)","backtrace":"\#(Data(bytes).base64EncodedString())"}"#
        return try? JSONDecoder().decode(Backtrace.self, from: Data(json.utf8))
    }

    /// Runs on the worker only: the runtime's symbolicator is not safe to run on several threads
    /// at once (reading `/proc/self/maps` and every image's ELF header on several threads crashed
    /// it, a bad pointer dereference in `getElfImageInfo`). The image map is read anew for each
    /// new stack, so that libraries loaded since are known.
    private static func symbolicateOnWorker(_ addresses: [UInt]) -> SymbolicatedStack {
        guard let backtrace = backtrace(returnAddresses: addresses),
              let symbolicated = backtrace.symbolicated(with: ImageMap.capture())
        else {
            return SymbolicatedStack(frames: addresses.map { "0x" + String($0, radix: 16) }, userFrame: nil)
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
        // The sanitizers' interceptors (`--sanitize=thread`) sit between the caller and libc.
        "/compiler-rt/", "/sanitizer_common/", "/tsan/", "/asan/",
        // Dependencies' sources (SwiftPM's and Xcode's checkouts): the user's call is further out.
        "/.build/checkouts/", "/SourcePackages/checkouts/",
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

#else
    /// Without the `Runtime` module (Apple SDKs before macOS 26, iOS, tvOS, watchOS,
    /// visionOS) frames are the return addresses in hexadecimal, and no user frame is known.
    /// Unbuilt and unverified: no Apple platform builds here.
    private static func symbolicateOnWorker(_ addresses: [UInt]) -> SymbolicatedStack {
        SymbolicatedStack(frames: addresses.map { "0x" + String($0, radix: 16) }, userFrame: nil)
    }

#endif
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
