/// Why a stream of length-prefixed gRPC messages could not be read. A gRPC peer answers each with
/// status `RESOURCE_EXHAUSTED` (too long), `UNIMPLEMENTED` (an encoding it lacks) or `INTERNAL`.
package struct GRPCFramingError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Equatable {
        case tooLong(length: UInt32, limit: Int)
        case compressedWithoutEncoding
        case unsupportedEncoding(String)
        case badCompressedData
        case badFlag(UInt8)
        case truncated(expected: Int, received: Int)
    }

    private let kind: Kind

    /// A message announced longer than the reader's limit.
    package static func tooLong(length: UInt32, limit: Int) -> Self { Self(kind: .tooLong(length: length, limit: limit)) }
    /// A message with its compressed flag set while the call's `grpc-encoding` is identity.
    package static let compressedWithoutEncoding = Self(kind: .compressedWithoutEncoding)
    /// A compressed message in an encoding the reader cannot decompress.
    package static func unsupportedEncoding(_ name: String) -> Self { Self(kind: .unsupportedEncoding(name)) }
    /// A compressed message that does not decompress (or decompresses past the limit).
    package static let badCompressedData = Self(kind: .badCompressedData)
    /// A flag byte other than 0 or 1.
    package static func badFlag(_ flag: UInt8) -> Self { Self(kind: .badFlag(flag)) }
    /// The stream ended inside a message: `expected` bytes of prefix and message, `received` of them.
    package static func truncated(expected: Int, received: Int) -> Self { Self(kind: .truncated(expected: expected, received: received)) }

    /// The gRPC status a server answers this error with.
    package var status: GRPCStatusCode {
        switch kind {
        case .tooLong: .resourceExhausted
        case .unsupportedEncoding: .unimplemented
        default: .internalError
        }
    }

    package var description: String {
        switch kind {
        case .tooLong(let length, let limit):
            "a gRPC message of \(length) bytes is over the limit of \(limit) bytes (raise maximumMessageLength to accept it)"
        case .compressedWithoutEncoding:
            "a gRPC message has its compressed flag set, but the call's grpc-encoding is identity (none)"
        case .unsupportedEncoding(let name):
            "a gRPC message is compressed with grpc-encoding \"\(name)\", which Airlock cannot read (it reads identity and gzip)"
        case .badCompressedData:
            "a compressed gRPC message is not valid gzip, or decompresses past the message length limit"
        case .badFlag(let flag):
            "a gRPC message starts with flag byte \(flag), neither 0 (plain) nor 1 (compressed)"
        case .truncated(let expected, let received):
            "the stream ended inside a gRPC message: \(received) of its \(expected) bytes (5-byte prefix included) arrived"
        }
    }
}
