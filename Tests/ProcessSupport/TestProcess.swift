import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process for tests, with the part of `Foundation.Process`'s interface the tests use,
/// started with `posix_spawn` directly.
///
/// Why not `Process`: on Linux, Swift 6.3.1's `Process.run()` lists `/proc/self/fd` to find the
/// highest open descriptor and copies each entry's whole 256-byte name field out of the
/// directory buffer. Once about 1,300 descriptors are open (the test process reaches that while
/// suites run in parallel: every `URLSession` holds a socket pair, every server its connections)
/// the listing fills the 32 KiB buffer, and the copy of its last entry can read past the
/// allocation into unmapped memory: the whole test process crashes in `Process.run()`. Here the
/// child closes every descriptor above standard error itself (`closefrom`), so nothing in this
/// process is listed or copied, however many descriptors are open.
public final class TestProcess: @unchecked Sendable {
    // @unchecked Sendable: the configuration is set before `run()` on one thread, as with
    // `Process`; the state written after the child starts (`state`) is only touched under `lock`.

    /// How the child ended.
    public enum TerminationReason: Sendable {
        /// It called `exit` (`terminationStatus` is its exit code).
        case exit
        /// A signal ended it (`terminationStatus` is the signal's number).
        case uncaughtSignal
    }

    public var executableURL: URL?
    public var arguments: [String] = []
    /// The child's environment; `nil`: this process's environment as it is when `run()` is called.
    /// Either way without Airgap's inheritance (`LD_PRELOAD`, `AIRGAP_*`) unless
    /// ``keepsAirgapGuard`` is set.
    public var environment: [String: String]?
    /// Whether the child keeps the Airgap guard this process hands to its children
    /// (`LD_PRELOAD` and `AIRGAP_INHERITED_*`, exported when the Airgap library loads). Off: the
    /// suites run in one process, and a child that another suite's test starts while an Airgap
    /// test has the guard on must not be guarded by it, nor have what it does reported as that
    /// test's violations. Airgap's own tests of inheritance turn it on.
    public var keepsAirgapGuard = false
    public var currentDirectoryURL: URL?
    /// A `FileHandle` or a `Pipe` (the child reads its reading end); `nil`: `/dev/null`.
    public var standardInput: Any? = FileHandle.standardInput
    /// A `FileHandle` or a `Pipe` (the child writes its writing end).
    public var standardOutput: Any? = FileHandle.standardOutput
    /// A `FileHandle` or a `Pipe` (the child writes its writing end).
    public var standardError: Any? = FileHandle.standardError
    /// Called once, on a thread of its own, when the child has ended.
    public var terminationHandler: (@Sendable (TestProcess) -> Void)?

    private struct State {
        var identifier: pid_t = 0
        var running = false
        var status: Int32 = 0
        var reason: TerminationReason = .exit
        var waiters: [CheckedContinuation<Int32, Never>] = []
    }
    private let lock = NSCondition()
    private var state = State()

    public init() {}

    public var processIdentifier: Int32 { lock.withLock { state.identifier } }
    public var isRunning: Bool { lock.withLock { state.running } }

    /// The exit code, or the number of the signal that ended the child. Only after it ended.
    public var terminationStatus: Int32 {
        lock.withLock {
            precondition(state.identifier > 0 && !state.running, "terminationStatus read before the child ended")
            return state.status
        }
    }

    public var terminationReason: TerminationReason {
        lock.withLock {
            precondition(state.identifier > 0 && !state.running, "terminationReason read before the child ended")
            return state.reason
        }
    }

    /// Starts the child; throws a `POSIXError` when it cannot be started.
    public func run() throws {
        guard let executableURL else { throw POSIXError(.ENOENT) }
        var actions = posix_spawn_file_actions_t()
        try Self.check(posix_spawn_file_actions_init(&actions))
        defer { posix_spawn_file_actions_destroy(&actions) }
        let streams: [(Any?, Int32, Bool)] = [
            (standardInput, STDIN_FILENO, true), (standardOutput, STDOUT_FILENO, false), (standardError, STDERR_FILENO, false),
        ]
        // nil and `FileHandle.nullDevice` (which has no descriptor of its own): /dev/null.
        let nullDevice = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard nullDevice >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(nullDevice) }
        for (stream, target, reads) in streams {
            let descriptor = Self.descriptor(of: stream, reading: reads) ?? nullDevice
            // glibc clears close-on-exec when both numbers are equal.
            try Self.check(posix_spawn_file_actions_adddup2(&actions, descriptor, target))
        }
        try Self.check(GNUSpawn.addCloseFrom(&actions, STDERR_FILENO + 1))
        if let currentDirectoryURL {
            try Self.check(GNUSpawn.addChangeDirectory(&actions, currentDirectoryURL.path))
        }

        var attributes = posix_spawnattr_t()
        try Self.check(posix_spawnattr_init(&attributes))
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group, as Process does: a Ctrl-C meant for `swift test` is not also theirs.
        try Self.check(posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP)))

        let argv = ([executableURL.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var environment = self.environment ?? ProcessInfo.processInfo.environment
        if !keepsAirgapGuard {
            environment = environment.filter { $0.key != "LD_PRELOAD" && !$0.key.hasPrefix("AIRGAP_") }
        }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }

        var identifier: pid_t = 0
        try Self.check(posix_spawn(&identifier, executableURL.path, &actions, &attributes, argv, envp))
        lock.withLock {
            state.identifier = identifier
            state.running = true
        }
        // The parent's copies of the child's ends, closed as Process closes them.
        (standardInput as? Pipe)?.fileHandleForReading.closeFile()
        (standardOutput as? Pipe)?.fileHandleForWriting.closeFile()
        (standardError as? Pipe)?.fileHandleForWriting.closeFile()

        let reaper = Thread { [self, identifier] in reap(identifier) }
        reaper.name = "TestProcess \(identifier)"
        reaper.start()
    }

    private func reap(_ identifier: pid_t) {
        var status: Int32 = 0
        while waitpid(identifier, &status, 0) == -1 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
        let signal = status & 0x7f
        let (waiters, exitStatus) = lock.withLock {
            state.running = false
            state.reason = signal == 0 ? .exit : .uncaughtSignal
            state.status = signal == 0 ? (status >> 8) & 0xff : signal
            lock.broadcast()
            defer { state.waiters = [] }
            return (state.waiters, state.status)
        }
        waiters.forEach { $0.resume(returning: exitStatus) }
        terminationHandler?(self)
    }

    /// Waits for the started child to end without blocking a thread of the cooperative pool
    /// (`waitUntilExit()` blocks one, and a two-core machine has two), and returns
    /// ``terminationStatus``.
    public func exitStatus() async -> Int32 {
        await withCheckedContinuation { continuation in
            let ended = lock.withLock { () -> Int32? in
                precondition(state.identifier > 0, "the child was not started")
                guard state.running else { return state.status }
                state.waiters.append(continuation)
                return nil
            }
            if let ended { continuation.resume(returning: ended) }
        }
    }

    /// Blocks until the child has ended.
    public func waitUntilExit() {
        lock.withLock {
            while state.identifier > 0 && state.running { lock.wait() }
        }
    }

    /// Sends `SIGTERM` and waits for the child to end, at most `seconds`, then sends `SIGKILL`
    /// and waits for that: a test that stops its child this way leaves nothing running that could
    /// still write into the test's folder once the test has removed it. Blocks the caller (a
    /// child stops within milliseconds of `SIGTERM`).
    public func stop(waitingAtMost seconds: Double = 10) {
        guard isRunning else { return }
        terminate()
        let deadline = Date(timeIntervalSinceNow: seconds)
        let ended = lock.withLock { () -> Bool in
            while state.running, lock.wait(until: deadline) {}
            return !state.running
        }
        if !ended {
            send(SIGKILL)
            waitUntilExit()
        }
    }

    /// Sends `SIGINT`.
    public func interrupt() { send(SIGINT) }

    /// Sends `SIGTERM`.
    public func terminate() { send(SIGTERM) }

    private func send(_ signal: Int32) {
        let (identifier, running) = lock.withLock { (state.identifier, state.running) }
        precondition(identifier > 0, "the child was not started")
        if running { kill(identifier, signal) }
    }

    private static func descriptor(of stream: Any?, reading: Bool) -> Int32? {
        let descriptor: Int32? = switch stream {
        case let pipe as Pipe: (reading ? pipe.fileHandleForReading : pipe.fileHandleForWriting).fileDescriptor
        case let handle as FileHandle where handle !== FileHandle.nullDevice: handle.fileDescriptor
        default: nil
        }
        return descriptor.flatMap { $0 >= 0 ? $0 : nil }
    }

    private static func check(_ result: Int32) throws {
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
    }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34) and `…_addchdir_np` (2.29), which
/// Swift's Glibc module does not import: looked up by name.
private enum GNUSpawn {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    static func addCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) -> Int32 {
        guard let function: CloseFrom = lookUp("posix_spawn_file_actions_addclosefrom_np") else { return ENOSYS }
        return function(actions, lowest)
    }

    static func addChangeDirectory(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ path: String) -> Int32 {
        guard let function: ChangeDirectory = lookUp("posix_spawn_file_actions_addchdir_np") else { return ENOSYS }
        return path.withCString { function(actions, $0) }
    }

    private static func lookUp<Function>(_ name: String) -> Function? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(symbol, to: Function.self)
    }
}
