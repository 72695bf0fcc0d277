import Foundation
import Testing

#if canImport(Glibc)
import Glibc
import ProcessSupport
#endif

/// `airlock serve --exit-with-parent`: a server started by a process that is then killed (so it
/// cannot stop the server) stops by itself and frees its port. Real processes: a shell starts
/// `airlock`, the test kills the shell with SIGKILL.
struct ExitWithParentTests {
    /// How long the server may take to go: a generous deadline for "it eventually exits", not a
    /// measure of how fast it does.
    static let deadline: Duration = .seconds(30)

    @Test func aServerWhoseParentIsKilledExitsAndFreesItsPort() async throws {
        let airlock = try #require(CLITests.executable, "build the airlock executable first (swift build)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-parent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("airlock.log").path
        let pidFile = folder.appendingPathComponent("airlock.pid").path
        let stubs = CLITests.packageRoot.appendingPathComponent("Examples/stubs.json").path

        // The parent: a shell that starts the server in the background, writes its pid, and waits.
        let parent = TestProcess()
        parent.executableURL = URL(fileURLWithPath: "/bin/sh")
        parent.arguments = ["-c", #""$0" serve "$1" --port 0 --exit-with-parent > "$2" 2>&1 & echo $! > "$3"; wait"#, airlock, stubs, log, pidFile]
        parent.standardInput = nil
        parent.standardOutput = FileHandle.nullDevice
        parent.standardError = FileHandle.nullDevice
        try parent.run()

        let port = try #require(await eventually { Self.port(inLog: log) }, "airlock printed no banner: \(Self.read(log))")
        let server = try #require(Int32(Self.read(pidFile).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(Self.isAlive(server))
        #expect(!Self.canBind(port), "the server is not listening on \(port)")

        kill(parent.processIdentifier, SIGKILL)
        _ = await parent.exitStatus()

        let gone = await eventually { Self.isAlive(server) ? nil : true }
        if gone == nil { kill(server, SIGKILL) }
        #expect(gone == true, "airlock (pid \(server)) still runs \(Self.deadline) after its parent was killed: \(Self.read(log))")
        #expect(await eventually { Self.canBind(port) ? true : nil } == true, "port \(port) is still taken")
        #expect(Self.read(log).contains("has exited; stopping (--exit-with-parent)"), "\(Self.read(log))")
    }

    /// Polls `check` every 50 ms until it returns a value, or ``deadline`` passes (`nil`).
    func eventually<T>(_ check: () -> T?) async -> T? {
        let clock = ContinuousClock()
        let end = clock.now + Self.deadline
        while clock.now < end {
            if let value = check() { return value }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return check()
    }

    static func read(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// The port of the banner line `Airlock serving … at http://127.0.0.1:PORT`.
    static func port(inLog path: String) -> Int? {
        guard let line = read(path).split(separator: "\n").first(where: { $0.hasPrefix("Airlock serving") }),
            let start = line.range(of: "http://127.0.0.1:")
        else { return nil }
        return Int(line[start.upperBound...].prefix { $0.isNumber })
    }

    /// Whether the process exists and is not a zombie (an orphan's zombie waits for a reaper that
    /// may never come in a container; it holds no port).
    static func isAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        let stat = read("/proc/\(pid)/stat")
        guard let close = stat.lastIndex(of: ")") else { return !stat.isEmpty }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first != "Z"
    }

    /// Whether a listener could bind 127.0.0.1:`port` now (as a new server would, with SO_REUSEADDR).
    static func canBind(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return bound == 0 && listen(descriptor, 1) == 0
    }
}
