import AirlockBase

/// The conservative pass for text that is not structured: finds the value in `name=value`,
/// `name: value` and `"name": "value"` pairs whose name is secret, and URL passwords
/// (`scheme://user:password@`). A byte scan; only the values' own bytes are reported.
///
/// On the request side a name is secret when it is a header, query item or body field name; on
/// the response side only when it is one of ``Redaction/responseFields``.
struct TextRedactor {
    let redaction: Redaction
    let names: Redaction.Names
    let side: Redaction.Side

    /// `text` with the secret values replaced.
    func redact(_ text: String) -> String {
        var text = text
        let edits = text.withUTF8 { bytes in
            var edits = ByteEdits()
            let replacement = Array(redaction.replacement.utf8)
            for range in ranges(in: bytes, 0..<bytes.count) { edits.replace(range, with: replacement) }
            return edits
        }
        return edits.applied(to: text)
    }

    /// The secret values in the text.
    func values(in text: String) -> [String] {
        var text = text
        return text.withUTF8 { bytes in
            ranges(in: bytes, 0..<bytes.count).map { String(decoding: bytes[$0], as: UTF8.self) }
        }
    }

    /// Whether `bytes[range]` may hold something this pass finds: a separator or a URL.
    static func mayHoldPairs(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        bytes[range].contains { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "=") }
    }

    /// Where the secret values in `bytes[range]` are, in order.
    func ranges(in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> [Range<Int>] {
        guard Self.mayHoldPairs(bytes, range) else { return [] }
        let pairs = pairValueRanges(in: bytes, range)
        let passwords = names.passwords ? Self.passwordRanges(in: bytes, range) : []
        guard !passwords.isEmpty else { return pairs }
        return (pairs + passwords).sorted { $0.lowerBound < $1.lowerBound }
    }

    // MARK: Pairs

    @inline(__always)
    private static func isNameByte(_ byte: UInt8) -> Bool {
        RedactionBytes.isWord(byte) || byte == UInt8(ascii: ".")
    }

    /// A name (`[A-Za-z][A-Za-z0-9_.-]*`, not preceded by a name character), an optional closing
    /// quote, spaces or tabs, `=` or `:`, spaces or tabs — then the value, for secret names.
    private func pairValueRanges(in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        let end = range.upperBound
        var position = range.lowerBound
        var covered = range.lowerBound
        let replacement = Array(redaction.replacement.utf8)
        let encodedReplacement = Array(redaction.formEncodedReplacement.utf8)
        while position < end {
            guard RedactionBytes.isLetter(bytes[position]), position == 0 || !Self.isNameByte(bytes[position - 1]) else {
                position += 1
                continue
            }
            let nameStart = position
            var cursor = position + 1
            while cursor < end, Self.isNameByte(bytes[cursor]) { cursor += 1 }
            let nameEnd = cursor
            if cursor < end, bytes[cursor] == UInt8(ascii: "\"") || bytes[cursor] == UInt8(ascii: "'") { cursor += 1 }
            while cursor < end, bytes[cursor] == UInt8(ascii: " ") || bytes[cursor] == UInt8(ascii: "\t") { cursor += 1 }
            guard cursor < end, bytes[cursor] == UInt8(ascii: ":") || bytes[cursor] == UInt8(ascii: "=") else {
                position = nameEnd
                continue
            }
            let separator = bytes[cursor]
            cursor += 1
            while cursor < end, bytes[cursor] == UInt8(ascii: " ") || bytes[cursor] == UInt8(ascii: "\t") { cursor += 1 }
            position = cursor
            guard nameStart >= covered else { continue }
            let name = String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)
            let isHeader = side == .request && separator == UInt8(ascii: ":") && names.header(name)
            guard isHeader || (side == .request ? names.any(name) : names.responseField(name)) else { continue }
            // Already hidden (the replacement, or its percent-encoded form in a URL), or marked
            // for the marker pass: nothing to do.
            let rest = bytes[cursor..<end]
            if rest.starts(with: replacement) || rest.starts(with: encodedReplacement) || rest.first == 0x01 || rest.first == 0x04 {
                continue
            }
            guard let value = valueRange(in: bytes, from: cursor, end: end, headerStyle: isHeader), !value.isEmpty,
                !bytes[value].elementsEqual(replacement)
            else { continue }
            ranges.append(value)
            covered = value.upperBound
        }
        return ranges
    }

    /// The value starting at `start`: a quoted string's content; for a header line, up to the
    /// end of the line (or two spaces, which separate verdicts in Airlock's messages); otherwise
    /// up to the next delimiter or white space.
    private func valueRange(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, end: Int, headerStyle: Bool) -> Range<Int>? {
        guard start < end else { return nil }
        let first = bytes[start]
        if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
            let contentStart = start + 1
            var index = contentStart
            while index < end {
                if bytes[index] == UInt8(ascii: "\\") {
                    index += 2
                    continue
                }
                if bytes[index] == first { return contentStart..<index }
                index += 1
            }
            return contentStart..<end
        }
        var index = start
        if headerStyle {
            while index < end, RedactionBytes.newlineLength(bytes, at: index) == 0 {
                if bytes[index] == UInt8(ascii: " "), index + 1 < end, bytes[index + 1] == UInt8(ascii: " ") { break }
                index += 1
            }
        } else {
            while index < end, !Self.isDelimiter(bytes[index]), RedactionBytes.whitespaceLength(bytes, at: index) == 0 {
                index += 1
            }
        }
        return start..<index
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ")"),
            UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: "#"), UInt8(ascii: "<"), UInt8(ascii: ">"):
            true
        default: false
        }
    }

    // MARK: URL passwords

    /// The passwords of `scheme://user:password@` in the text (the scheme starting with a
    /// letter; user and password without `/`, white space or quotes).
    static func passwordRanges(in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var index = range.lowerBound
        let end = range.upperBound
        func stops(_ position: Int, alsoAtColon: Bool) -> Bool {
            let byte = bytes[position]
            return byte == UInt8(ascii: "/") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
                || (alsoAtColon && byte == UInt8(ascii: ":")) || RedactionBytes.whitespaceLength(bytes, at: position) > 0
        }
        while let separator = URLParts.nextSchemeSeparator(in: bytes, from: index, end: end) {
            index = separator + 3
            guard URLParts.schemeStart(in: bytes, before: separator, from: range.lowerBound) != nil else { continue }
            var cursor = index
            while cursor < end, !stops(cursor, alsoAtColon: true) { cursor += 1 }
            guard cursor < end, bytes[cursor] == UInt8(ascii: ":") else { continue }
            let passwordStart = cursor + 1
            cursor = passwordStart
            while cursor < end, !stops(cursor, alsoAtColon: false) { cursor += 1 }
            guard cursor < end, bytes[cursor] == UInt8(ascii: "@"), cursor > passwordStart else { continue }
            ranges.append(passwordStart..<cursor)
            index = cursor + 1
        }
        return ranges
    }
}
