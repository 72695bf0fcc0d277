import Foundation

/// The parts of a `multipart/…` body as WireMock sees them (it reads them with Apache Commons
/// FileUpload): only parts whose `Content-Disposition` is `form-data` with a `name`; a part that
/// is itself `multipart/mixed` stands for the files inside it that have a `filename`. Bodies are
/// the bytes as sent, with no transfer encoding undone. A body that is not multipart, has no
/// boundary or is cut short has no parts.
struct WireMockMultipart: Sendable {
    /// One part: its header fields and its bytes.
    struct Part: Sendable {
        /// The header fields, names as sent.
        let headers: [(name: String, value: String)]
        let body: Data
        /// The `filename` of its `Content-Disposition`, if it has one.
        let fileName: String?

        /// The values of the fields with this name (case-insensitive); `nil` when there are none.
        func headerValues(_ name: String) -> [String]? {
            let lowered = name.lowercased()
            let values = headers.filter { $0.name.lowercased() == lowered }.map(\.value)
            return values.isEmpty ? nil : values
        }
    }

    /// Headers of one part longer than this are not read (FileUpload's limit is 10 KiB).
    static let headerLimit = 10_240
    /// Parts inside one body, past which the rest are not read.
    static let partLimit = 1_000

    /// Whether WireMock takes a request with this `Content-Type` for multipart: it contains `multipart/`.
    static func isMultipart(contentType: String?) -> Bool {
        contentType?.contains("multipart/") ?? false
    }

    /// The parts of `body` sent with `contentType`; empty when there are none WireMock would read.
    static func parts(of body: Data, contentType: String) -> [Part] {
        guard contentType.lowercased().hasPrefix("multipart/"), let boundary = parameters(contentType)["boundary"], !boundary.isEmpty else { return [] }
        var parts: [Part] = []
        for (headers, content) in sections(Array(body), boundary: Array(boundary.utf8)) {
            guard parts.count < partLimit else { break }
            let part = Part(headers: headers, body: Data(content), fileName: fileName(headers))
            guard let disposition = part.headerValues("Content-Disposition")?.first, disposition.lowercased().hasPrefix("form-data"),
                parameters(disposition)["name"] != nil
            else { continue }
            if let type = part.headerValues("Content-Type")?.first, type.lowercased().hasPrefix("multipart/mixed") {
                guard let inner = parameters(type)["boundary"], !inner.isEmpty else { continue }
                for (headers, content) in sections(content, boundary: Array(inner.utf8)) where parts.count < partLimit {
                    guard let name = fileName(headers) else { continue }
                    parts.append(Part(headers: headers, body: Data(content), fileName: name))
                }
                continue
            }
            parts.append(part)
        }
        return parts
    }

    /// The `filename` of a `form-data` or `attachment` disposition, trimmed.
    private static func fileName(_ headers: [(name: String, value: String)]) -> String? {
        guard let disposition = headers.first(where: { $0.name.lowercased() == "content-disposition" })?.value else { return nil }
        let lowered = disposition.lowercased()
        guard lowered.hasPrefix("form-data") || lowered.hasPrefix("attachment") else { return nil }
        return parameters(disposition)["filename"]
    }

    /// `type; name=value; other="quoted"`: the parameters, names lowercased, values trimmed and unquoted.
    static func parameters(_ value: String) -> [String: String] {
        var parameters: [String: String] = [:]
        var pieces: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in value {
            if escaped {
                current.append(character)
                escaped = false
                continue
            }
            if quoted, character == "\\" {
                escaped = true
                continue
            }
            if character == "\"" { quoted.toggle() }
            if character == ";", !quoted {
                pieces.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        pieces.append(current)
        for piece in pieces.dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = pair[0].trimmingCharacters(in: .whitespaces).lowercased()
            guard !name.isEmpty, parameters[name] == nil else { continue }
            var text = pair.count > 1 ? pair[1].trimmingCharacters(in: .whitespaces) : ""
            if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
            parameters[name] = text.trimmingCharacters(in: .whitespaces)
        }
        return parameters
    }

    /// Each section between `--boundary` lines: its header fields and its content. The first
    /// delimiter may follow a preamble; the one ending in `--` closes the body.
    /// Sections after a delimiter that is cut short, or whose headers never end, are not returned.
    private static func sections(_ body: [UInt8], boundary: [UInt8]) -> [(headers: [(name: String, value: String)], content: [UInt8])] {
        let dashes: [UInt8] = [45, 45]
        let delimiter = dashes + boundary
        let separator: [UInt8] = [13, 10] + delimiter
        // The first delimiter, wherever it is: the preamble before it is skipped (as FileUpload
        // does, it need not end in a line break).
        guard let first = find(delimiter, in: body, from: 0) else { return [] }
        var position = first + delimiter.count
        var sections: [(headers: [(name: String, value: String)], content: [UInt8])] = []
        while sections.count < partLimit {
            // After a delimiter: `--` closes, a line break starts a part (spaces before it are allowed).
            if body.count >= position + 2, body[position] == 45, body[position + 1] == 45 { break }
            while position < body.count, body[position] == 32 || body[position] == 9 { position += 1 }
            guard body.count >= position + 2, body[position] == 13, body[position + 1] == 10 else { break }
            position += 2
            // No header fields: the blank line follows at once.
            let headerEnd: Int? = body.count >= position + 2 && body[position] == 13 && body[position + 1] == 10
                ? position - 2
                : find([13, 10, 13, 10], in: body, from: position, limit: headerLimit)
            guard let headerEnd else { break }
            let headers = headerEnd > position ? fields(Array(body[position..<headerEnd])) : []
            let contentStart = headerEnd + 4
            guard contentStart <= body.count, let end = find(separator, in: body, from: contentStart) else { break }
            sections.append((headers, Array(body[contentStart..<end])))
            position = end + separator.count
        }
        return sections
    }

    /// Header lines (`Name: value`, continued by lines that start with a space or tab).
    private static func fields(_ bytes: [UInt8]) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        let text = String(decoding: bytes, as: UTF8.self)
        for line in text.components(separatedBy: "\r\n") {
            if let first = line.first, first == " " || first == "\t", !fields.isEmpty {
                fields[fields.count - 1].value += " " + line.trimmingCharacters(in: .whitespaces)
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { continue }
            fields.append((name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return fields
    }

    /// Where `needle` first occurs in `haystack` at or after `start` (and, with `limit`, starting
    /// within that many bytes of it). Knuth–Morris–Pratt: linear in the body whatever the bytes,
    /// so that no body and boundary make matching slow.
    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int, limit: Int? = nil) -> Int? {
        guard !needle.isEmpty, start >= 0 else { return nil }
        var last = haystack.count - needle.count
        if let limit { last = min(last, start + limit) }
        guard start <= last else { return nil }
        var failure = [Int](repeating: 0, count: needle.count)
        var length = 0
        for index in 1..<max(needle.count, 1) {
            while length > 0, needle[index] != needle[length] { length = failure[length - 1] }
            if needle[index] == needle[length] { length += 1 }
            failure[index] = length
        }
        var matched = 0
        var index = start
        while index < haystack.count {
            while matched > 0, haystack[index] != needle[matched] { matched = failure[matched - 1] }
            if haystack[index] == needle[matched] { matched += 1 }
            if matched == needle.count {
                let found = index - needle.count + 1
                return found <= last ? found : nil
            }
            // Past the last place a match may start: none can finish in range.
            if index - matched >= last { return nil }
            index += 1
        }
        return nil
    }
}
