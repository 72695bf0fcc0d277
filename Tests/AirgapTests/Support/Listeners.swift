import Foundation

#if canImport(Glibc)
import Glibc
import ProcessSupport
#endif

/// A TCP listener and a UDP socket on one loopback address and ephemeral ports, non-blocking,
/// for the escape tests: whatever reaches them is queued by the kernel (a completed TCP
/// handshake waits to be accepted, a datagram to be read), so after the sender has finished,
/// ``received()`` says for certain whether anything arrived.
final class LoopbackListeners: Sendable {
    let host: String
    let tcpPort: Int
    let udpPort: Int
    private let tcp: Int32
    private let udp: Int32

    init(host: String = "127.0.0.1") throws {
        self.host = host
        (tcp, tcpPort) = try Self.open(type: SOCK_STREAM, host: host)
        (udp, udpPort) = try Self.open(type: SOCK_DGRAM, host: host)
    }

    deinit {
        close(tcp)
        close(udp)
    }

    /// What arrived since the last call: `"tcp"` for each accepted connection, `"udp"` for each
    /// datagram.
    func received() -> [String] {
        var arrived: [String] = []
        while true {
            let connection = accept(tcp, nil, nil)
            guard connection >= 0 else { break }
            close(connection)
            arrived.append("tcp")
        }
        var buffer = [UInt8](repeating: 0, count: 2048)
        while recv(udp, &buffer, buffer.count, Int32(MSG_DONTWAIT)) >= 0 {
            arrived.append("udp")
        }
        return arrived
    }

    private static func open(type: __socket_type, host: String) throws -> (Int32, Int) {
        let descriptor = socket(AF_INET, Int32(type.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw ListenerError(what: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        inet_pton(AF_INET, host, &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0
                    && (type != SOCK_STREAM || listen(descriptor, 64) == 0)
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(descriptor)
            throw ListenerError(what: "bind/listen on \(host)", code: code)
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }
}

struct ListenerError: Error, CustomStringConvertible {
    let what: String
    let code: Int32
    var description: String { "\(what) failed: errno \(code)" }
}

/// Runs `executable` with `arguments` and the environment this process has now (as a user's
/// code would), and returns its exit status; fails after ``hangGuard`` instead of hanging.
func runChild(_ executable: String, _ arguments: [String]) async throws -> Int32 {
    try await withTimeout("\(executable) \(arguments.joined(separator: " "))") {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.keepsAirgapGuard = true
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return await process.exitStatus()
    }
}
