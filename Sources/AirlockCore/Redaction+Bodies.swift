import Foundation

/// Hides secret fields in a body, read as its content type says.
struct BodyRedactor {
    let redaction: Redaction
    let names: Redaction.Names

    private var replacement: String { redaction.replacement }

    func redact(_ data: Data, contentType: String?) -> Data {
        guard !data.isEmpty, let text = String(data: data, encoding: .utf8) else { return data }
        switch kind(of: text, contentType: contentType) {
        case .json:
            if let redacted = json(text) { return Data(redacted.utf8) }
            return Data(TextRedactor(redaction: redaction, names: names).redact(text).utf8)
        case .form:
            return Data(form(text).utf8)
        case .multipart(let boundary):
            return Data(multipart(text, boundary: boundary).utf8)
        case .text:
            return Data(TextRedactor(redaction: redaction, names: names).redact(text).utf8)
        }
    }

    /// The values of secret fields in a body.
    func secrets(in data: Data, contentType: String?) -> [String] {
        guard let text = String(data: data, encoding: .utf8) else { return [] }
        var values: [String] = []
        switch kind(of: text, contentType: contentType) {
        case .json:
            for document in documents(text) { collect(document, into: &values) }
        case .form:
            for (name, value) in FormFields.pairs(text) where names.field(name) { values.append(value) }
        case .multipart(let boundary):
            for part in parts(text, boundary: boundary) where part.name.map(names.field) == true {
                values.append(part.content.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        case .text:
            values += TextRedactor(redaction: redaction, names: names).values(in: text)
        }
        return values
    }

    // MARK: Kinds

    private enum Kind {
        case json
        case form
        case multipart(boundary: String)
        case text
    }

    private func kind(of text: String, contentType: String?) -> Kind {
        let type = contentType?.lowercased() ?? ""
        if type.hasPrefix("multipart/"), let boundary = Self.boundary(in: contentType ?? "") { return .multipart(boundary: boundary) }
        if type.contains("x-www-form-urlencoded") { return .form }
        let start = Self.withoutBOM(text).first { !$0.isWhitespace }
        if type.contains("json") || start == "{" || start == "[" { return .json }
        if type.isEmpty, Self.looksLikeForm(text) { return .form }
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
    private static func looksLikeForm(_ text: String) -> Bool {
        guard !text.isEmpty, !text.contains(where: \.isWhitespace) else { return false }
        return text.split(separator: "&").allSatisfy { $0.contains("=") && !$0.hasPrefix("=") }
    }

    private static func withoutBOM(_ text: String) -> Substring {
        text.hasPrefix("\u{FEFF}") ? text.dropFirst() : Substring(text)
    }

    // MARK: JSON

    /// The parsed documents: one, or one per line (NDJSON). Empty when it is neither.
    private func documents(_ text: String) -> [Any] {
        let body = Self.withoutBOM(text)
        if let object = try? JSONSerialization.jsonObject(with: Data(body.utf8), options: [.fragmentsAllowed]) {
            return [object]
        }
        let lines = body.split(whereSeparator: \.isNewline).filter { !$0.allSatisfy(\.isWhitespace) }
        let parsed = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8), options: [.fragmentsAllowed]) }
        return parsed.count == lines.count ? parsed : []
    }

    /// The JSON (or NDJSON) with secret fields replaced; `nil` when it does not parse.
    private func json(_ text: String) -> String? {
        let body = Self.withoutBOM(text)
        if let object = try? JSONSerialization.jsonObject(with: Data(body.utf8), options: [.fragmentsAllowed]) {
            return serialize(redact(object))
        }
        let lines = body.split(whereSeparator: \.isNewline)
        var output: [String] = []
        for line in lines {
            if line.allSatisfy(\.isWhitespace) { continue }
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed]),
                let redacted = serialize(redact(object))
            else { return nil }
            output.append(redacted)
        }
        return output.isEmpty ? nil : output.joined(separator: "\n") + "\n"
    }

    private func serialize(_ object: Any) -> String? {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]))
            .map { String(decoding: $0, as: UTF8.self) }
    }

    private func redact(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, child) in object {
                result[key] = names.field(key) ? replacement : redact(child)
            }
            return result
        }
        if let array = value as? [Any] {
            return array.map(redact)
        }
        if let text = value as? String {
            // A string that is itself text with secrets (`"query": "mutation { login(password: \"x\") }"`).
            return TextRedactor(redaction: redaction, names: names).redact(text)
        }
        return value
    }

    private func collect(_ value: Any, into values: inout [String]) {
        if let object = value as? [String: Any] {
            for (key, child) in object {
                if names.field(key) {
                    if let text = child as? String { values.append(text) } else if let number = child as? NSNumber { values.append(number.stringValue) }
                } else {
                    collect(child, into: &values)
                }
            }
        } else if let array = value as? [Any] {
            for child in array { collect(child, into: &values) }
        } else if let text = value as? String {
            values += TextRedactor(redaction: redaction, names: names).values(in: text)
        }
    }

    // MARK: Forms

    private func form(_ text: String) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentDecoding.decode(Substring(parts[0].replacingOccurrences(of: "+", with: " ")))
            guard parts.count == 2, names.field(name) else { return String(pair) }
            return "\(parts[0])=\(replacement.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? replacement)"
        }.joined(separator: "&")
    }

    // MARK: Multipart

    private struct Part {
        let headers: Substring
        let separator: String
        let content: Substring
        var name: String? {
            for line in headers.split(whereSeparator: \.isNewline) where line.lowercased().hasPrefix("content-disposition") {
                guard let range = line.range(of: "name=\"") else { continue }
                return String(line[range.upperBound...].prefix { $0 != "\"" })
            }
            return nil
        }
    }

    /// The parts between `--boundary` lines; each keeps its header block and content.
    private func parts(_ text: String, boundary: String) -> [Part] {
        text.components(separatedBy: "--" + boundary).dropFirst().compactMap { chunk -> Part? in
            guard !chunk.hasPrefix("--") else { return nil }
            for separator in ["\r\n\r\n", "\n\n"] {
                if let range = chunk.range(of: separator) {
                    return Part(headers: chunk[..<range.lowerBound], separator: separator, content: chunk[range.upperBound...])
                }
            }
            return nil
        }
    }

    private func multipart(_ text: String, boundary: String) -> String {
        let delimiter = "--" + boundary
        var pieces = text.components(separatedBy: delimiter)
        for index in pieces.indices.dropFirst() where !pieces[index].hasPrefix("--") {
            let chunk = pieces[index]
            for separator in ["\r\n\r\n", "\n\n"] {
                guard let range = chunk.range(of: separator) else { continue }
                let part = Part(headers: chunk[..<range.lowerBound], separator: separator, content: chunk[range.upperBound...])
                let lineEnd = separator == "\r\n\r\n" ? "\r\n" : "\n"
                let content: String
                if part.name.map(names.field) == true {
                    content = replacement + lineEnd
                } else {
                    content = TextRedactor(redaction: redaction, names: names).redact(String(part.content))
                }
                pieces[index] = String(part.headers) + separator + content
                break
            }
        }
        return pieces.joined(separator: delimiter)
    }
}

/// The conservative pass for text that is not structured: hides the value in `name=value`,
/// `name: value` and `"name": "value"` pairs whose name is secret, and URL passwords.
struct TextRedactor {
    let redaction: Redaction
    let names: Redaction.Names

    private var encodedReplacement: String {
        redaction.replacement.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? redaction.replacement
    }

    /// A name, an optional closing quote, and `=` or `:`.
    private static let pair: NSRegularExpression = {
        // The pattern is a literal and valid.
        try! NSRegularExpression(pattern: #"(?<![A-Za-z0-9_\-.])([A-Za-z][A-Za-z0-9_\-.]*)(["']?)[ \t]*([:=])[ \t]*"#)
    }()

    /// `scheme://user:password@`.
    private static let userInfo: NSRegularExpression = {
        try! NSRegularExpression(pattern: #"([A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@"']*):([^@/\s"']+)@"#)
    }()

    func redact(_ text: String) -> String {
        var result = text
        for range in valueRanges(in: text).reversed() {
            result.replaceSubrange(range, with: redaction.replacement)
        }
        let nsRange = NSRange(result.startIndex..., in: result)
        let template = "$1:" + NSRegularExpression.escapedTemplate(for: redaction.replacement) + "@"
        return Self.userInfo.stringByReplacingMatches(in: result, range: nsRange, withTemplate: template)
    }

    /// The secret values in the text.
    func values(in text: String) -> [String] {
        valueRanges(in: text).map { String(text[$0]) }
    }

    /// Where the values of secret pairs are, in order, not overlapping.
    private func valueRanges(in text: String) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        let matches = Self.pair.matches(in: text, range: NSRange(text.startIndex..., in: text))
        var covered = text.startIndex
        for match in matches {
            guard let whole = Range(match.range, in: text), whole.lowerBound >= covered,
                let nameRange = Range(match.range(at: 1), in: text), let separatorRange = Range(match.range(at: 3), in: text)
            else { continue }
            let name = text[nameRange]
            let separator = text[separatorRange]
            let isHeader = separator == ":" && names.header(name)
            guard isHeader || names.any(name) else { continue }
            // Already hidden (the replacement, or its percent-encoded form in a URL), or marked
            // for the marker pass: nothing to do.
            let rest = text[whole.upperBound...]
            if rest.hasPrefix(redaction.replacement) || rest.hasPrefix(encodedReplacement) || rest.hasPrefix("\u{1}") || rest.hasPrefix("\u{4}") {
                continue
            }
            guard let value = valueRange(in: text, from: whole.upperBound, headerStyle: isHeader) else { continue }
            let shown = text[value]
            if shown.isEmpty || shown == redaction.replacement { continue }
            ranges.append(value)
            covered = value.upperBound
        }
        return ranges
    }

    /// The value starting at `start`: a quoted string's content; for a header line, up to the
    /// end of the line (or two spaces, which separate verdicts in Airlock's messages); otherwise
    /// up to the next delimiter.
    private func valueRange(in text: String, from start: String.Index, headerStyle: Bool) -> Range<String.Index>? {
        guard start < text.endIndex else { return nil }
        let first = text[start]
        if first == "\"" || first == "'" {
            let contentStart = text.index(after: start)
            var index = contentStart
            while index < text.endIndex {
                if text[index] == "\\" {
                    index = text.index(after: index)
                    if index < text.endIndex { index = text.index(after: index) }
                    continue
                }
                if text[index] == first { return contentStart..<index }
                index = text.index(after: index)
            }
            return contentStart..<text.endIndex
        }
        var end = start
        if headerStyle {
            while end < text.endIndex, !text[end].isNewline {
                if text[end] == " ", text.index(after: end) < text.endIndex, text[text.index(after: end)] == " " { break }
                end = text.index(after: end)
            }
        } else {
            while end < text.endIndex, !Self.delimiters.contains(text[end]), !text[end].isWhitespace {
                end = text.index(after: end)
            }
        }
        return start..<end
    }

    private static let delimiters: Set<Character> = ["&", "\"", "'", ",", ";", ")", "}", "]", "#", "<", ">"]
}
