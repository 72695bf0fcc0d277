import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP port on 127.0.0.1 that refuses every connection for as long as this value lives: a
/// socket is bound to it and never listens, so the kernel answers a connect with a reset at once,
/// and no other server can take the port meanwhile (unlike guessing that nothing listens on 9).
package final class RefusingPort {
    package let port: Int
    private let descriptor: Int32

    package init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(descriptor)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }
}

extension RefusingPort {
    /// A port on 127.0.0.1 that refuses connections for the whole test run: what a test leaves
    /// pending (a webhook far off) goes there, never to a server a later test starts on a port
    /// the kernel handed out again.
    package static let forTheWholeRun: Int = {
        let refusing = try! RefusingPort()
        _ = Unmanaged.passRetained(refusing)  // bound until the process ends
        return refusing.port
    }()
}
