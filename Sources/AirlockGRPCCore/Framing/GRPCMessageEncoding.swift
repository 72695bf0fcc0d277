import CZlib
import Foundation

/// A `grpc-encoding`: how compressed messages of a call are compressed.
package struct GRPCMessageEncoding: Sendable, Hashable, CustomStringConvertible {
    /// The header's value (`identity`, `gzip`, `deflate`, `snappy`…), lower-cased.
    package let name: String

    /// The header's value, as a peer sent it.
    package init(_ name: String) {
        self.name = name.lowercased()
    }

    /// No compression: a message with the compressed flag is an error.
    package static let identity = Self("identity")
    /// gzip (zlib), which this package reads and writes.
    package static let gzip = Self("gzip")

    package var description: String { name }

    /// gzip's bytes of `message`.
    static func gzipCompress(_ message: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        guard deflateInit2_(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return []
        }
        defer { deflateEnd(&stream) }
        var input = message
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(message.count))) + 32)
        let produced: Int = input.withUnsafeMutableBufferPointer { inputBytes in
            output.withUnsafeMutableBufferPointer { outputBytes in
                stream.next_in = inputBytes.baseAddress
                stream.avail_in = uInt(inputBytes.count)
                stream.next_out = outputBytes.baseAddress
                stream.avail_out = uInt(outputBytes.count)
                let status = deflate(&stream, Z_FINISH)
                return status == Z_STREAM_END ? outputBytes.count - Int(stream.avail_out) : -1
            }
        }
        return produced < 0 ? [] : Array(output.prefix(produced))
    }

    /// The message inside gzip's bytes; `nil` unless whole, valid and at most `limit` bytes.
    static func gzipDecompress(_ compressed: [UInt8], limit: Int) -> [UInt8]? {
        var stream = z_stream()
        guard inflateInit2_(&stream, 31, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var input = compressed
        var output: [UInt8] = []
        let chunk = 16 * 1024
        var buffer = [UInt8](repeating: 0, count: chunk)
        let status: Int32 = input.withUnsafeMutableBufferPointer { inputBytes in
            stream.next_in = inputBytes.baseAddress
            stream.avail_in = uInt(inputBytes.count)
            var result = Z_OK
            while result == Z_OK {
                result = buffer.withUnsafeMutableBufferPointer { outputBytes in
                    stream.next_out = outputBytes.baseAddress
                    stream.avail_out = uInt(chunk)
                    let code = inflate(&stream, Z_NO_FLUSH)
                    output.append(contentsOf: outputBytes.prefix(chunk - Int(stream.avail_out)))
                    return code
                }
                if output.count > limit { return Z_DATA_ERROR }
                if result == Z_OK, stream.avail_in == 0, stream.avail_out != 0 { break }
            }
            return result
        }
        // Nothing may follow the gzip stream inside the message.
        return status == Z_STREAM_END && stream.avail_in == 0 ? output : nil
    }
}
