import AirlockBase
import Foundation

/// The secret values a request carried, found again wherever they stand as whole tokens: the
/// bytes just before and after an occurrence must not be token characters (ASCII letters, digits,
/// `_`, `-`) — checked only on the sides where the secret's own edge is one. So the secret `date`
/// is not found in `updated_date`, nor `1004` in `Code=-1004`, but `abcd1234` is in
/// `Bearer abcd1234`. Each value is looked for as written and percent-encoded.
///
/// One pass over the bytes whatever the number of secrets (a table of first bytes), so a large
/// body costs time in proportion to its size.
struct SecretScrubber {
    private struct Needle {
        let bytes: [UInt8]
        let replacement: [UInt8]
        /// The replacement escaped for the inside of a JSON string.
        let jsonReplacement: [UInt8]
        let checksStart: Bool
        let checksEnd: Bool
    }

    /// Longest first, so that at one position the longest value wins.
    private let needles: [Needle]
    /// For each first byte, the needles that start with it.
    private let byFirstByte: [[Int]]

    var isEmpty: Bool { needles.isEmpty }

    /// - Parameters:
    ///   - secrets: Values replaced by `replacement` (percent-encoded ones by `encodedReplacement`).
    ///   - named: Values replaced by a placeholder of their own, keyed by placeholder; a value that
    ///     is also in `secrets` gets its named placeholder.
    init(secrets: [String], replacement: String, encodedReplacement: String, named: [String: String] = [:]) {
        var needles: [Needle] = []
        var seen: Set<String> = []
        func add(_ secret: String, _ replacement: String, _ encodedReplacement: String) {
            guard !secret.isEmpty, seen.insert(secret).inserted else { return }
            needles.append(Self.needle(Array(secret.utf8), replacement: replacement))
            if let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics), encoded != secret {
                needles.append(Self.needle(Array(encoded.utf8), replacement: encodedReplacement))
            }
        }
        for (placeholder, value) in named.sorted(by: { $0.key < $1.key }) {
            add(value, placeholder, placeholder.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? placeholder)
        }
        for secret in Set(secrets) { add(secret, replacement, encodedReplacement) }
        needles.sort { $0.bytes.count != $1.bytes.count ? $0.bytes.count > $1.bytes.count : $0.bytes.lexicographicallyPrecedes($1.bytes) }
        var table = [[Int]](repeating: [], count: 256)
        for (index, needle) in needles.enumerated() { table[Int(needle.bytes[0])].append(index) }
        self.needles = needles
        byFirstByte = table
    }

    private static func needle(_ bytes: [UInt8], replacement: String) -> Needle {
        Needle(
            bytes: bytes,
            replacement: Array(replacement.utf8),
            jsonReplacement: RedactionBytes.jsonEscaped(replacement),
            checksStart: RedactionBytes.isWord(bytes[0]),
            checksEnd: RedactionBytes.isWord(bytes[bytes.count - 1])
        )
    }

    /// Calls `body` with each occurrence in `bytes[range]` (leftmost first, not overlapping) and
    /// the text that replaces it (escaped for a JSON string when `json`). Bytes outside `bytes`
    /// count as not token characters.
    func forEachMatch(in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, json: Bool = false, _ body: (Range<Int>, [UInt8]) -> Void) {
        guard !needles.isEmpty else { return }
        var index = range.lowerBound
        let end = range.upperBound
        search: while index < end {
            let candidates = byFirstByte[Int(bytes[index])]
            if candidates.isEmpty {
                index += 1
                continue
            }
            for candidate in candidates {
                let needle = needles[candidate]
                let length = needle.bytes.count
                guard index + length <= end else { continue }
                var offset = 1
                while offset < length, bytes[index + offset] == needle.bytes[offset] { offset += 1 }
                guard offset == length else { continue }
                if needle.checksStart, index > 0, RedactionBytes.isWord(bytes[index - 1]) { continue }
                if needle.checksEnd, index + length < bytes.count, RedactionBytes.isWord(bytes[index + length]) { continue }
                body(index..<index + length, json ? needle.jsonReplacement : needle.replacement)
                index += length
                continue search
            }
            index += 1
        }
    }

    /// The occurrences in `bytes[range]`, replaced.
    func edits(in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, into edits: inout ByteEdits) {
        forEachMatch(in: bytes, range) { edits.replace($0, with: $1) }
    }

    /// The occurrences in a JSON string's content: looked for in its decoded text (so an escape
    /// next to a value is read as the character it stands for), replaced with the replacement
    /// escaped for JSON, never touching the quotes or another escape.
    func jsonStringEdits(in bytes: UnsafeBufferPointer<UInt8>, content: Range<Int>, escaped: Bool, decoded: JSONScanner.Decoded?, into edits: inout ByteEdits) {
        guard !needles.isEmpty else { return }
        guard escaped, let decoded else {
            forEachMatch(in: bytes, content, json: true) { edits.replace($0, with: $1) }
            return
        }
        decoded.bytes.withUnsafeBufferPointer { text in
            forEachMatch(in: text, 0..<text.count, json: true) { edits.replace(decoded.raw($0), with: $1) }
        }
    }
}
