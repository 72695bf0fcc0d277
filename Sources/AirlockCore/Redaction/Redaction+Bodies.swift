import AirlockBase
import Foundation

/// Hides secret fields in a body, read as its content type says, by rewriting only the bytes of
/// the secret values: everything else (key order, white space, number spelling, escapes, a
/// byte-order mark, line structure) is copied as it was, and a body with nothing to hide is
/// returned as the same bytes.
struct BodyRedactor {
    let redaction: Redaction
    let names: Redaction.Names
    /// Request bodies hide ``Redaction/jsonFields`` and ``Redaction/queryItemNames``; response
    /// bodies only ``Redaction/responseFields``.
    let side: Redaction.Side

    private var replacement: [UInt8] { Array(redaction.replacement.utf8) }

    /// The body with secret fields — and, given a scrubber, the request's secret values standing
    /// as whole tokens — replaced.
    func redact(_ data: Data, contentType: String?, scrubbing scrubber: SecretScrubber? = nil) -> Data {
        guard !data.isEmpty else { return data }
        let edits = data.withUnsafeBytes { raw in
            self.edits(in: raw.bindMemory(to: UInt8.self), contentType: contentType, scrubber: scrubber)
        }
        return edits.applied(to: data)
    }

    /// The parts of a streamed body with secrets replaced as in the whole body: the parts joined
    /// are read and redacted once (so a secret, or a field, that one part starts and the next
    /// ends is found), and each edit lands in the part where its range starts; the rest of a
    /// range that crosses a boundary is dropped from the parts after. The parts keep their count.
    func redact(parts: [Data], contentType: String?, scrubbing scrubber: SecretScrubber? = nil) -> [Data] {
        var joined = Data(capacity: parts.reduce(0) { $0 + $1.count })
        for part in parts { joined.append(part) }
        guard !joined.isEmpty else { return parts }
        let edits = joined.withUnsafeBytes { raw in
            self.edits(in: raw.bindMemory(to: UInt8.self), contentType: contentType, scrubber: scrubber)
        }
        return edits.applied(toParts: parts)
    }

    /// The values of secret fields in a body.
    func secrets(in data: Data, contentType: String?) -> [String] {
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let kind = kind(of: bytes, contentType: contentType)
            if case .multipart(let boundary) = kind {
                return multipartSecrets(in: bytes, boundary: boundary)
            }
            guard !bytes.isEmpty, RedactionBytes.isValidUTF8(bytes) else { return [] }
            switch kind {
            case .json:
                if let values = jsonSecrets(in: bytes) { return values }
                return text.values(in: String(decoding: bytes, as: UTF8.self))
            case .form:
                return FormFields.pairs(String(decoding: bytes, as: UTF8.self)).filter { isSecretField($0.name) }.map(\.value)
            case .multipart, .text:
                return text.values(in: String(decoding: bytes, as: UTF8.self))
            }
        }
    }

    private var text: TextRedactor { TextRedactor(redaction: redaction, names: names, side: side) }

    private func isSecretField(_ name: some StringProtocol) -> Bool {
        side == .request ? names.field(name) : names.responseField(name)
    }

    private func isSecretField(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        side == .request ? names.fields.contains(bytes, range) : names.responseFields.contains(bytes, range)
    }

    private func edits(in bytes: UnsafeBufferPointer<UInt8>, contentType: String?, scrubber: SecretScrubber?) -> ByteEdits {
        let kind = kind(of: bytes, contentType: contentType)
        if case .multipart(let boundary) = kind {
            // Parts may be binary: each is checked on its own.
            return multipart(bytes, boundary: boundary, scrubber: scrubber)
        }
        // Other binary bodies are left as they are.
        guard RedactionBytes.isValidUTF8(bytes) else { return ByteEdits() }
        switch kind {
        case .json:
            return json(bytes, scrubber: scrubber) ?? textEdits(bytes, 0..<bytes.count, scrubber: scrubber)
        case .form:
            return form(bytes, scrubber: scrubber)
        case .multipart, .text:
            return textEdits(bytes, 0..<bytes.count, scrubber: scrubber)
        }
    }

    /// The text pass and the scrubber over `bytes[range]`.
    private func textEdits(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, scrubber: SecretScrubber?) -> ByteEdits {
        var edits = ByteEdits()
        let replacement = replacement
        for value in text.ranges(in: bytes, range) { edits.replace(value, with: replacement) }
        scrubber?.edits(in: bytes, range, into: &edits)
        return edits
    }

    // MARK: Kinds

    private enum Kind {
        case json
        case form
        case multipart(boundary: String)
        case text
    }

    private func kind(of bytes: UnsafeBufferPointer<UInt8>, contentType: String?) -> Kind {
        let type = contentType?.lowercased() ?? ""
        if type.hasPrefix("multipart/"), let boundary = Self.boundary(in: contentType ?? "") { return .multipart(boundary: boundary) }
        if type.contains("x-www-form-urlencoded") { return .form }
        var index = JSONScanner.hasByteOrderMark(bytes) ? 3 : 0
        while index < bytes.count {
            let space = RedactionBytes.whitespaceLength(bytes, at: index)
            if space == 0 { break }
            index += space
        }
        let start = index < bytes.count ? bytes[index] : 0
        if type.contains("json") || start == UInt8(ascii: "{") || start == UInt8(ascii: "[") { return .json }
        if type.isEmpty, Self.looksLikeForm(bytes) { return .form }
        return .text
    }

    private static func boundary(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" {
                return parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }

    /// `a=1&b=2`: no white space, every piece a `name=value` pair.
    private static func looksLikeForm(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty, !(0..<bytes.count).contains(where: { RedactionBytes.whitespaceLength(bytes, at: $0) > 0 }) else { return false }
        return bytes.split(separator: UInt8(ascii: "&")).allSatisfy { $0.contains(UInt8(ascii: "=")) && $0.first != UInt8(ascii: "=") }
    }

    // MARK: JSON

    /// The edits for a JSON (or NDJSON) body; `nil` when it is not JSON.
    private func json(_ bytes: UnsafeBufferPointer<UInt8>, scrubber: SecretScrubber?) -> ByteEdits? {
        var edits = ByteEdits()
        let stringReplacement = RedactionBytes.jsonEscaped(redaction.replacement)
        let valueReplacement = [UInt8(ascii: "\"")] + stringReplacement + [UInt8(ascii: "\"")]
        let isJSON = JSONScanner.scan(bytes, isSecretKey: { isSecretKey(bytes, $0, escaped: $1) }) { found in
            switch found {
            case .secretString(let content):
                // An empty string hides nothing.
                if !content.isEmpty { edits.replace(content, with: stringReplacement) }
            case .secretValue(let range):
                edits.replace(range, with: valueReplacement)
            case .string(let content, let escaped):
                stringEdits(bytes, content: content, escaped: escaped, scrubber: scrubber, into: &edits)
            }
        }
        return isJSON ? edits : nil
    }

    private func isSecretKey(_ bytes: UnsafeBufferPointer<UInt8>, _ content: Range<Int>, escaped: Bool) -> Bool {
        guard escaped else { return isSecretField(bytes, content) }
        // `"pass\u0077ord"` is `password`: the decoded key is compared.
        return isSecretField(String(decoding: JSONScanner.decode(bytes, content).bytes, as: UTF8.self))
    }

    /// A string value that is not secret itself: on the request side, the text pass (a GraphQL
    /// `"query": "mutation { login(password: \"x\") }"`); on both sides, the scrubber. Both read
    /// the decoded text and edit only the raw bytes of what they find.
    private func stringEdits(_ bytes: UnsafeBufferPointer<UInt8>, content: Range<Int>, escaped: Bool, scrubber: SecretScrubber?, into edits: inout ByteEdits) {
        let textPass = side == .request && TextRedactor.mayHoldPairs(bytes, content)
        let scrubs = scrubber.map { !$0.isEmpty } ?? false
        guard textPass || scrubs, !content.isEmpty else { return }
        let decoded = escaped ? JSONScanner.decode(bytes, content) : nil
        if textPass {
            let replacement = RedactionBytes.jsonEscaped(redaction.replacement)
            if let decoded {
                decoded.bytes.withUnsafeBufferPointer { text in
                    for value in self.text.ranges(in: text, 0..<text.count) { edits.replace(decoded.raw(value), with: replacement) }
                }
            } else {
                for value in text.ranges(in: bytes, content) { edits.replace(value, with: replacement) }
            }
        }
        scrubber?.jsonStringEdits(in: bytes, content: content, escaped: escaped, decoded: decoded, into: &edits)
    }

    /// The secret values of a JSON body: strings and numbers under secret keys, and (request
    /// side) the values the text pass finds in other strings; `nil` when it is not JSON.
    private func jsonSecrets(in bytes: UnsafeBufferPointer<UInt8>) -> [String]? {
        var values: [String] = []
        let isJSON = JSONScanner.scan(bytes, isSecretKey: { isSecretKey(bytes, $0, escaped: $1) }) { found in
            switch found {
            case .secretString(let content):
                values.append(String(decoding: JSONScanner.decode(bytes, content).bytes, as: UTF8.self))
            case .secretValue(let range):
                let first = bytes[range.lowerBound]
                if first == UInt8(ascii: "-") || RedactionBytes.isDigit(first) {
                    values.append(String(decoding: bytes[range], as: UTF8.self))
                }
            case .string(let content, _):
                guard side == .request, TextRedactor.mayHoldPairs(bytes, content) else { return }
                values += text.values(in: String(decoding: JSONScanner.decode(bytes, content).bytes, as: UTF8.self))
            }
        }
        return isJSON ? values : nil
    }

    // MARK: Forms

    /// `name=value&…`: the values of secret fields (names percent-decoded, `+` read as a space),
    /// replaced by the percent-encoded replacement; empty values are left as they are.
    private func form(_ bytes: UnsafeBufferPointer<UInt8>, scrubber: SecretScrubber?) -> ByteEdits {
        var edits = ByteEdits()
        let replacement = Array(redaction.formEncodedReplacement.utf8)
        var start = 0
        while start <= bytes.count {
            let end = (start..<bytes.count).first { bytes[$0] == UInt8(ascii: "&") } ?? bytes.count
            if let equals = (start..<end).first(where: { bytes[$0] == UInt8(ascii: "=") }), equals + 1 < end {
                let name = String(decoding: bytes[start..<equals].map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
                if isSecretField(PercentDecoding.decode(Substring(name))) {
                    edits.replace(equals + 1..<end, with: replacement)
                }
            }
            start = end + 1
        }
        scrubber?.edits(in: bytes, 0..<bytes.count, into: &edits)
        return edits
    }

    // MARK: Multipart

    private struct Part {
        /// The header block.
        let headers: Range<Int>
        /// The content, without the line break before the next delimiter.
        let content: Range<Int>
    }

    /// The parts between `--boundary` lines.
    private func parts(_ bytes: UnsafeBufferPointer<UInt8>, boundary: String) -> [Part] {
        let delimiter = Array(("--" + boundary).utf8)
        var starts: [Int] = []
        var index = 0
        while let found = Self.firstRange(of: delimiter, in: bytes, index..<bytes.count) {
            starts.append(found)
            index = found + delimiter.count
        }
        var parts: [Part] = []
        for (number, start) in starts.enumerated() {
            let chunk = start + delimiter.count..<(number + 1 < starts.count ? starts[number + 1] : bytes.count)
            guard !bytes[chunk].starts(with: "--".utf8) else { continue }
            for separator in ["\r\n\r\n", "\n\n"] {
                guard let found = Self.firstRange(of: Array(separator.utf8), in: bytes, chunk) else { continue }
                var contentEnd = chunk.upperBound
                let contentStart = found + separator.utf8.count
                if contentEnd > contentStart, bytes[contentEnd - 1] == UInt8(ascii: "\n") {
                    contentEnd -= 1
                    if contentEnd > contentStart, bytes[contentEnd - 1] == UInt8(ascii: "\r") { contentEnd -= 1 }
                }
                parts.append(Part(headers: chunk.lowerBound..<found, content: contentStart..<contentEnd))
                break
            }
        }
        return parts
    }

    /// The part's field name: `name="…"` of its `Content-Disposition` line.
    private func name(of part: Part, in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let headers = String(decoding: bytes[part.headers], as: UTF8.self)
        for line in headers.split(whereSeparator: \.isNewline) where line.lowercased().hasPrefix("content-disposition") {
            var rest = line[...]
            while let range = rest.range(of: "name=\"") {
                // Not `filename="…"`.
                if range.lowerBound > line.startIndex, line[line.index(before: range.lowerBound)].isLetter {
                    rest = line[range.upperBound...]
                    continue
                }
                return String(line[range.upperBound...].prefix { $0 != "\"" })
            }
        }
        return nil
    }

    private func multipart(_ bytes: UnsafeBufferPointer<UInt8>, boundary: String, scrubber: SecretScrubber?) -> ByteEdits {
        var edits = ByteEdits()
        let replacement = replacement
        for part in parts(bytes, boundary: boundary) {
            if name(of: part, in: bytes).map(isSecretField) == true {
                if !part.content.isEmpty { edits.replace(part.content, with: replacement) }
            } else if RedactionBytes.isValidUTF8(UnsafeBufferPointer(rebasing: bytes[part.content])) {
                edits.append(contentsOf: textEdits(bytes, part.content, scrubber: scrubber))
            }
        }
        return edits
    }

    private func multipartSecrets(in bytes: UnsafeBufferPointer<UInt8>, boundary: String) -> [String] {
        parts(bytes, boundary: boundary).compactMap { part in
            guard name(of: part, in: bytes).map(isSecretField) == true else { return nil }
            return String(decoding: bytes[part.content], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Where `needle` first starts in `bytes[range]`.
    private static func firstRange(of needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        guard let first = needle.first else { return nil }
        var index = range.lowerBound
        while index + needle.count <= range.upperBound {
            if bytes[index] == first, bytes[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
