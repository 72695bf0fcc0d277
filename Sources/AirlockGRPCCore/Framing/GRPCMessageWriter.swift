/// Writes gRPC's length-prefixed messages: a flag byte (1: compressed), the length as 4 bytes
/// big-endian, the message.
package struct GRPCMessageWriter: Sendable {
    /// The call's `grpc-encoding`; `identity` writes every message plain.
    package var encoding: GRPCMessageEncoding

    /// A writer for a call with this `grpc-encoding` (identity or gzip).
    package init(encoding: GRPCMessageEncoding = .identity) {
        self.encoding = encoding
    }

    /// One message with its prefix; compressed (flag 1) when the encoding is gzip and `compress`.
    package func frame(_ message: [UInt8], compress: Bool = true) -> [UInt8] {
        if compress, encoding == .gzip {
            return Self.prefixed(GRPCMessageEncoding.gzipCompress(message), compressed: true)
        }
        return Self.prefixed(message, compressed: false)
    }

    /// The prefix and the bytes as they are.
    package static func prefixed(_ payload: [UInt8], compressed: Bool) -> [UInt8] {
        let length = UInt32(truncatingIfNeeded: payload.count)
        var framed: [UInt8] = [compressed ? 1 : 0, UInt8(length >> 24), UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)]
        framed.reserveCapacity(5 + payload.count)
        framed += payload
        return framed
    }
}
