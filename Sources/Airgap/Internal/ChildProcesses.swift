import AirlockBase
import CAirgap
import Foundation

#if canImport(Glibc)
import Glibc
#endif

#if os(Linux) && !AIRGAP_NO_SOCKET_LAYER
/// Guards the processes a guarded process starts, and collects what they report.
///
/// At load time, before any thread exists, CAirgap exports `LD_PRELOAD` (the `AirgapPreload`
/// library) and `AIRGAP_INHERITED_STATE` (a state file) once, so every child started with the
/// inherited environment (`Process`, `posix_spawn`, `fork`+`exec`, `system`) loads the same
/// hooks. While the guard enforces, the state file carries its mode, allowed hosts and log; each
/// child reads it as it loads. Children, and `fork()`ed copies of this process, append one line
/// per violation to a log file of this process, which ``drain()`` turns into violations of every
/// scope open when it is read (or, outside scopes, of the test running then).
enum ChildProcesses {
    /// The log file children write to: one per process, created at the first activation in a
    /// directory only this user can write (the state file's, or one of its own). Removed at exit.
    static let logPath: String = {
        var directory = String(cString: airgap_state_directory())
        if directory.isEmpty {
            // Children are not guarded, but fork()ed copies of this process still report here.
            var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("airgap-XXXXXX").utf8CString)
            if let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) {
                directory = String(cString: made)
                ownDirectory.withLock { $0 = (directory, getpid()) }
            } else {
                directory = NSTemporaryDirectory()
            }
        }
        let path = (directory as NSString).appendingPathComponent("children-\(getpid()).log")
        if airgap_set_child_log(path) != 0 {
            printToStandardError("Airgap: could not create \(path) (errno \(errno)); violations of child processes will not be reported. Make the temporary directory writable or set TMPDIR.")
        }
        isLogOpen.withLock { $0 = true }
        atexit { ChildProcesses.removeLog() }
        return path
    }()

    private static let isLogOpen = Locked(false)
    private static let ownDirectory = Locked<(path: String, creator: pid_t)?>(nil)

    static func removeLog() {
        // Only the process that created the log removes it (a forked child exits through here too).
        if airgap_child_log_owner() == getpid() { unlink(logPath) }
        if let directory = ownDirectory.withLock({ $0 }), directory.creator == getpid() { rmdir(directory.path) }
        airgap_remove_inherited_state()
    }

    /// Opens the log (once).
    static func prepare() {
        _ = logPath
    }

    /// Whether the load-time export happened, and a warning for the first activation when it did
    /// not (`nil`: children are guarded, or nothing needs saying).
    private static let inheritanceProblem: String? = {
        switch Int(airgap_children_status()) {
        case Int(AIRGAP_CHILDREN_GUARDED.rawValue), Int(AIRGAP_CHILDREN_GOVERNED_BY_PARENT.rawValue):
            return nil
        case Int(AIRGAP_CHILDREN_EXPLICIT_PATH_MISSING.rawValue):
            let explicit = ProcessInfo.processInfo.environment["AIRGAP_PRELOAD_PATH"] ?? ""
            return "Airgap: AIRGAP_PRELOAD_PATH=\(explicit) does not exist; child processes are not guarded. Point it at libAirgapPreload.so, which swift build puts next to the test binary when the test target lists .product(name: \"AirgapPreload\", package: \"Airlock\") (or build it with `swift build --product AirgapPreload`)."
        case Int(AIRGAP_CHILDREN_NO_STATE_DIRECTORY.rawValue):
            return "Airgap: could not create a private directory in \(NSTemporaryDirectory()); child processes are not guarded. Make the temporary directory writable or set TMPDIR."
        case Int(AIRGAP_CHILDREN_SANITIZER.rawValue):
            return "Airgap: built with ThreadSanitizer; child processes are not guarded (an instrumented libAirgapPreload.so cannot load into other programs)."
        default:
            let directory = ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) as NSString?)?
                .deletingLastPathComponent ?? "the executable"
            return "Airgap: libAirgapPreload.so was not found next to \(directory); child processes are not guarded. Add .product(name: \"AirgapPreload\", package: \"Airlock\") to the test target's dependencies (swift build and swift test then build it), or build it with `swift build --product AirgapPreload`, or set AIRGAP_PRELOAD_PATH before the test process starts."
        }
    }()

    private static let publishLock = Locked(PublishState())

    private struct PublishState {
        var published: (mode: String, allowed: String)?
        var warned = false
    }

    /// Publishes (or withdraws) the guard for child processes. Called by `Airgap.synchronise()`.
    ///
    /// The environment was exported once at load time (see `CAirgap.h`); this only rewrites the
    /// state file children read as they load, so no thread ever sees the environment change.
    static func applyEnvironment(enforcing: Bool, mode: Airgap.Mode, allowedHosts: [String]) {
        #if os(Linux)
        let wanted: (mode: String, allowed: String)? = enforcing
            ? (mode == .fail ? "fail" : "warn", allowedHosts.joined(separator: ","))
            : nil
        publishLock.withLock { state in
            if state.published?.mode == wanted?.mode, state.published?.allowed == wanted?.allowed { return }
            if wanted != nil, let problem = inheritanceProblem {
                if !state.warned { printToStandardError(problem) }
                state.warned = true
                return
            }
            if Int(airgap_children_status()) != Int(AIRGAP_CHILDREN_GUARDED.rawValue) { return }
            let modeValue: Int32 = switch wanted?.mode {
            case "fail": Int32(AIRGAP_MODE_FAIL.rawValue)
            case "warn": Int32(AIRGAP_MODE_WARN.rawValue)
            default: Int32(AIRGAP_MODE_OFF.rawValue)
            }
            if airgap_publish_inherited_state(modeValue, wanted?.allowed ?? "", wanted == nil ? "" : logPath) != 0 {
                let code = errno
                printToStandardError("Airgap: could not write the state file for child processes (errno \(code)); children started now are not guarded. Make the temporary directory writable or set TMPDIR.")
                return
            }
            state.published = wanted
        }
        #endif
    }

    private static let readOffset = Locked<UInt64>(0)

    /// Reads the lines children appended since the last call and records each as a violation of
    /// the test running now (``ViolationPipeline/settle()`` calls it).
    static func drain() {
        guard isLogOpen.withLock({ $0 }) else { return }
        let lines: [Substring] = readOffset.withLock { offset in
            guard let handle = FileHandle(forReadingAtPath: logPath) else { return [] }
            defer { try? handle.close() }
            guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.readToEnd(), !data.isEmpty else { return [] }
            guard let lastNewline = data.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
            let complete = data[data.startIndex...lastNewline]
            offset += UInt64(complete.count)
            return String(decoding: complete, as: UTF8.self).split(separator: "\n")
        }
        for line in lines {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 7, fields[0] == "airgap", let event = Int32(fields[1]), let port = Int(fields[2]),
                  let socketType = Int32(fields[3]) else { continue }
            let violation = SocketGuard.violation(
                event: event, host: fields[5], port: port, socketType: socketType,
                protocol: fields.count >= 8 ? Int32(fields[7]) ?? 0 : 0,
                testName: Airgap.attributedTestName(),
                stack: ViolationStack(frames: ["child process \(fields[4]) (\(fields[6]))"])
            )
            // A child belongs to no test's task: every open scope records it, as it would a
            // connection made on a thread no test owns.
            Airgap.record(violation, delivery: ViolationPipeline.unownedDelivery())
        }
    }
}
#else
/// Without a socket layer (not Linux, or built with `AIRGAP_NO_SOCKET_LAYER`) there is no preload
/// library: child processes are not guarded and report nothing.
enum ChildProcesses {
    /// Nothing to open.
    static func prepare() {}

    /// Nothing to publish.
    static func applyEnvironment(enforcing: Bool, mode: Airgap.Mode, allowedHosts: [String]) {}

    /// Nothing to read.
    static func drain() {}

    /// Nothing to remove.
    static func removeLog() {}
}
#endif
