import AirlockCore
import CAirgap
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Guards the processes a guarded process starts, and collects what they report.
///
/// While the guard enforces, the environment of this process carries `LD_PRELOAD` with the
/// `AirgapPreload` library and the `AIRGAP_INHERITED_*` variables (mode, allowed hosts, log), so
/// every child started with the inherited environment (`Process`, `posix_spawn`, `fork`+`exec`,
/// `system`) loads the same hooks. Children, and `fork()`ed copies of this process, append one
/// line per violation to a log file of this process, which ``drain()`` turns into violations of
/// the test running when it is read.
enum ChildProcesses {
    /// The log file children write to: one per process, created at the first activation.
    /// Removed at exit.
    static let logPath: String = {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("airgap-\(getpid())-children.log")
        unlink(path)
        if airgap_set_child_log(path) != 0 {
            printToStandardError("Airgap: could not create \(path) (errno \(errno)); violations of child processes will not be reported. Make the temporary directory writable or set TMPDIR.")
        }
        isLogOpen.withLock { $0 = true }
        atexit { ChildProcesses.removeLog() }
        return path
    }()

    private static let isLogOpen = Locked(false)

    static func removeLog() {
        // Only the process that created the log removes it (a forked child exits through here too).
        guard airgap_child_log_owner() == getpid() else { return }
        unlink(logPath)
    }

    /// Opens the log (once).
    static func prepare() {
        _ = logPath
    }

    /// The preload library: `AIRGAP_PRELOAD_PATH`, else `libAirgapPreload.so` next to the running
    /// executable (SwiftPM puts both in `.build/<configuration>`).
    static let preloadLibraryPath: String? = {
        let fileManager = FileManager.default
        if let explicit = ProcessInfo.processInfo.environment["AIRGAP_PRELOAD_PATH"], !explicit.isEmpty {
            if fileManager.fileExists(atPath: explicit) { return explicit }
            printToStandardError("Airgap: AIRGAP_PRELOAD_PATH=\(explicit) does not exist; child processes are not guarded. Point it at libAirgapPreload.so (built by `swift build`).")
            return nil
        }
        var directories: [String] = []
        if let executable = try? fileManager.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append((executable as NSString).deletingLastPathComponent)
        }
        directories.append((CommandLine.arguments[0] as NSString).deletingLastPathComponent)
        for directory in directories {
            let candidate = (directory as NSString).appendingPathComponent("libAirgapPreload.so")
            if fileManager.fileExists(atPath: candidate) { return candidate }
        }
        printToStandardError("Airgap: libAirgapPreload.so was not found next to \(directories.first ?? "the executable"); child processes are not guarded. Build it with `swift build` (it is the AirgapPreload product) or set AIRGAP_PRELOAD_PATH.")
        return nil
    }()

    /// `LD_PRELOAD` as it was before Airgap changed it (`nil`: unset).
    private static let originalPreload: String? = ProcessInfo.processInfo.environment["LD_PRELOAD"]

    private static let environmentLock = Locked(EnvironmentState())

    private struct EnvironmentState {
        var applied: (mode: String, allowed: String)?
    }

    /// Exports (or withdraws) the guard for child processes. Called by `Airgap.synchronise()`.
    static func applyEnvironment(enforcing: Bool, mode: Airgap.Mode, allowedHosts: Set<String>) {
        #if os(Linux)
        let wanted: (mode: String, allowed: String)? = enforcing
            ? (mode == .fail ? "fail" : "warn", allowedHosts.sorted().joined(separator: ","))
            : nil
        environmentLock.withLock { state in
            if state.applied?.mode == wanted?.mode, state.applied?.allowed == wanted?.allowed { return }
            if let wanted, let library = preloadLibraryPath {
                let preload = [library, originalPreload].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
                setenv("AIRGAP_INHERITED_LOG", logPath, 1)
                setenv("AIRGAP_INHERITED_ALLOWED", wanted.allowed, 1)
                setenv("AIRGAP_INHERITED_MODE", wanted.mode, 1)
                setenv("LD_PRELOAD", preload, 1)
                state.applied = wanted
            } else if state.applied != nil {
                // Values are replaced, not removed: replacing never frees what another thread
                // may be reading from the environment.
                setenv("AIRGAP_INHERITED_MODE", "off", 1)
                setenv("LD_PRELOAD", originalPreload ?? "", 1)
                state.applied = nil
            }
        }
        #endif
    }

    private static let readOffset = Locked<UInt64>(0)

    /// Reads the lines children appended since the last call and records each as a violation of
    /// the test running now.
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
                testName: Airgap.attributedTestName(),
                callStack: ["child process \(fields[4]) (\(fields[6]))"]
            )
            Airgap.record(violation, message: violation.message, location: nil)
        }
    }
}
