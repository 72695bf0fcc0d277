import AirlockBase
import CZlib
import Foundation

/// Reads bodies in the content codings HTTP clients decode for their callers (RFC 9110 §8.4.1):
/// `gzip` (and `x-gzip`) and `deflate`, with zlib. Other codings (`br`, `zstd`) cannot be read.
package enum ContentCoding {
    /// Whether `decode(_:coding:)` can read a body in this `Content-Encoding`.
    package static func canDecode(_ coding: String) -> Bool {
        codings(coding).allSatisfy { supported.contains($0) }
    }

    /// The body decoded from every coding `coding` lists (applied in order, so undone in reverse);
    /// `nil` when a coding is not supported or the bytes are not valid in it.
    package static func decode(_ data: Data, coding: String) -> Data? {
        var body = data
        for name in codings(coding).reversed() {
            switch name {
            case "gzip", "x-gzip":
                guard let decoded = inflate(body, windowBits: 15 + 16) else { return nil }
                body = decoded
            case "deflate":
                // RFC 9110 says zlib-wrapped; some servers send the raw stream.
                guard let decoded = inflate(body, windowBits: 15) ?? inflate(body, windowBits: -15) else { return nil }
                body = decoded
            default:
                return nil
            }
        }
        return body
    }

    /// The accepted codings a client offered that Airlock can read (`gzip, br;q=0.9` → `gzip`),
    /// or `identity` when none is left.
    package static func readable(acceptEncoding: String) -> String {
        let kept = acceptEncoding.split(separator: ",").filter { item in
            let name = item.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            return supported.contains(name) || name == "identity"
        }
        return kept.isEmpty ? "identity" : kept.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")
    }

    private static let supported: Set<String> = ["gzip", "x-gzip", "deflate", "identity"]

    private static func codings(_ header: String) -> [String] {
        header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty && $0 != "identity" }
    }

    /// Inflates a whole stream; `nil` unless it is complete and valid.
    private static func inflate(_ data: Data, windowBits: Int32) -> Data? {
        guard !data.isEmpty else { return Data() }
        var stream = z_stream()
        guard inflateInit2_(&stream, windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output = Data()
        let chunk = 64 * 1024
        var buffer = [UInt8](repeating: 0, count: chunk)
        var input = [UInt8](data)
        let status: Int32 = input.withUnsafeMutableBufferPointer { inputBytes in
            stream.next_in = inputBytes.baseAddress
            stream.avail_in = uInt(inputBytes.count)
            var result = Z_OK
            while result == Z_OK {
                result = buffer.withUnsafeMutableBufferPointer { outputBytes in
                    stream.next_out = outputBytes.baseAddress
                    stream.avail_out = uInt(chunk)
                    let code = CZlib.inflate(&stream, Z_NO_FLUSH)
                    output.append(outputBytes.baseAddress!, count: chunk - Int(stream.avail_out))
                    return code
                }
                if result == Z_OK, stream.avail_in == 0, stream.avail_out != 0 { break }
            }
            return result
        }
        return status == Z_STREAM_END ? output : nil
    }
}
