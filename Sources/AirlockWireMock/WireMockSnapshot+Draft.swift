import AirlockBase
import AirlockCassettes
import AirlockCore
import AirlockStubFiles
import Foundation
import HTTPTypes

extension WireMockSnapshot {
    /// One exchange on its way to a mapping file: its request pattern, response and names, and
    /// the scenario step it gets when its request repeats.
    struct Draft {
        struct Scenario {
            let name: String
            let required: String
            let next: String?
        }

        let id: String
        /// WireMock's `name`: the path as a slug (`api_users_42`).
        let name: String
        /// The path's segments joined with `-`, for a scenario's name.
        let pathParts: String
        /// The mapping's `request`.
        let request: JSONValue
        let status: Int
        let headers: JSONValue?
        let body: Data
        /// Whether the body may be written inline as `body`.
        let bodyIsInlineText: Bool
        /// The extension of its file in `__files`.
        let fileExtension: String
        var scenario: Scenario?

        /// WireMock's limit for an inline text body (`ResponseDefinitionBodyMatcher`).
        static let inlineTextLimit = 10_240

        init(entry: RecordedRequest, response: RecordedResponse, status: Int, index: Int, placeholders: [String]) {
            let target = RequestTarget(url: entry.url)
            id = Self.stableID(index: index, entry: entry)
            name = FileNames.slug(path: target.path)
            pathParts = target.path.split(separator: "/").joined(separator: "-")
            request = WireMockSnapshot.requestPattern(entry, target: target, placeholders: placeholders)
            self.status = status
            // A decoded body goes out without the coding, as a cassette's replay over a socket sends it.
            var fields = response.headerFields.removing(names: Cassette.framingFields)
            if !response.bodyIsEncoded { fields = fields.removing(names: ["content-encoding"]) }
            headers = Self.headers(fields)
            body = response.body
            let mimeType = fields[.contentType].map(ContentTypes.mimeType) ?? ""
            let text = String(decoding: body, as: UTF8.self)
            bodyIsInlineText = !response.bodyIsEncoded && ContentTypes.isWireMockText(mimeType)
                && text.utf8.elementsEqual(body) && text.utf16.count <= Self.inlineTextLimit
            fileExtension = response.bodyIsEncoded ? "bin" : FileNames.fileExtension(mimeType: mimeType, path: target.path, body: body)
        }

        /// `<name>-<id>`, or `<method>-<url>-<id>` when the path gives no name, as WireMock's
        /// `FilenameMaker` makes it.
        private var baseName: String {
            name.isEmpty ? "\(FileNames.sanitise(request.method))--\(id)" : "\(name)-\(id)"
        }

        /// The mapping file, and the body's file when the body is not inline.
        func files(insertionIndex: Int) -> (mapping: File, body: File?) {
            var response: [(String, JSONValue)] = [("status", .number(Double(status)))]
            var bodyFile: File?
            if !body.isEmpty {
                if bodyIsInlineText {
                    response.append(("body", .string(String(decoding: body, as: UTF8.self))))
                } else {
                    let fileName = "\(baseName).\(fileExtension)"
                    response.append(("bodyFileName", .string(fileName)))
                    bodyFile = File(path: "__files/" + fileName, contents: body)
                }
            }
            if let headers { response.append(("headers", headers)) }
            var members: [(String, JSONValue)] = [("id", .string(id))]
            if !name.isEmpty { members.append(("name", .string(name))) }
            members += [("request", request), ("response", .members(response)), ("uuid", .string(id)), ("persistent", .bool(true))]
            if let scenario {
                members.append(("scenarioName", .string(scenario.name)))
                members.append(("requiredScenarioState", .string(scenario.required)))
                if let next = scenario.next { members.append(("newScenarioState", .string(next))) }
            }
            members.append(("insertionIndex", .number(Double(insertionIndex))))
            return (File(path: "mappings/\(baseName).json", contents: JSONValue.members(members).prettyText), bodyFile)
        }

        /// Each name once, in the order it first occurs, with its values in order (an array when
        /// it occurs more than once). Names keep their spelling; two spellings stay two keys.
        private static func headers(_ fields: HTTPFields) -> JSONValue? {
            guard !fields.isEmpty else { return nil }
            var names: [String] = []
            var values: [String: [String]] = [:]
            for field in fields {
                let name = field.name.rawName
                if values[name] == nil { names.append(name) }
                values[name, default: []].append(field.value)
            }
            return .members(names.map { name in
                let list = values[name] ?? []
                return (name, list.count == 1 ? .string(list[0]) : .array(list.map(JSONValue.string)))
            })
        }

        /// An id made from the exchange, so that exporting the same cassette again writes the
        /// same files (stable under version control): two 64-bit FNV-1a digests, as a version 4
        /// UUID's bits.
        private static func stableID(index: Int, entry: RecordedRequest) -> String {
            var seed = Data("\(index)\u{0}\(entry.method)\u{0}\(entry.url)\u{0}".utf8)
            seed.append(entry.body ?? Data())
            var bytes: [UInt8] = []
            for offset: UInt64 in [0xcbf2_9ce4_8422_2325, 0x84222325_cbf29ce4] {
                var hash = offset
                for byte in seed {
                    hash ^= UInt64(byte)
                    hash = hash &* 0x0000_0100_0000_01B3
                }
                bytes += withUnsafeBytes(of: hash.bigEndian, Array.init)
            }
            bytes[6] = (bytes[6] & 0x0F) | 0x40
            bytes[8] = (bytes[8] & 0x3F) | 0x80
            let uuid = UUID(uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
            return uuid.uuidString.lowercased()
        }
    }
}

extension JSONValue {
    /// The `method` member of a request pattern, for a file name.
    fileprivate var method: String {
        guard case .object(let members) = self, case .string(let method)? = members["method"] else { return "" }
        return method
    }
}

/// File names and extensions as WireMock's `FilenameMaker` and `ContentTypes` make them.
enum FileNames {
    /// The path as a mapping name: `/api/users/42` → `api_users_42` (`sanitizeUrl`).
    static func slug(path: String) -> String {
        let underscored = path.replacingOccurrences(of: "/", with: "_")
        let dashed = underscored.unicodeScalars.map { CharacterSet.whitespacesAndNewlines.contains($0) ? "-" : String($0) }.joined()
        var slug = Substring(sanitise(dashed.decomposedStringWithCanonicalMapping))
        while slug.hasPrefix("_") { slug = slug.dropFirst() }
        while slug.hasSuffix("_") { slug = slug.dropLast() }
        return String(slug.prefix(200))
    }

    /// Spaces as `-`, then only ASCII letters, digits, `_`, `-` and `.`, lowercased.
    static func sanitise(_ text: String) -> String {
        let allowed = text.replacingOccurrences(of: " ", with: "-").unicodeScalars.filter { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "_" || scalar == "-" || scalar == ".")
        }
        return String(String.UnicodeScalarView(allowed)).lowercased()
    }

    /// `json`, `xml`, `txt`, a known media type's, the path's own, or what the body looks like.
    static func fileExtension(mimeType: String, path: String, body: Data) -> String {
        if mimeType.contains("json") { return "json" }
        if mimeType.contains("xml") { return "xml" }
        if mimeType.contains("text") { return "txt" }
        if let known = commonTypes[mimeType] { return known }
        let last = path.split(separator: "/").last ?? ""
        if let dot = last.lastIndex(of: ".") {
            let given = sanitise(String(last[last.index(after: dot)...])).replacingOccurrences(of: ".", with: "")
            if !given.isEmpty { return given }
        }
        guard String(decoding: body, as: UTF8.self).utf8.elementsEqual(body) else { return "bin" }
        return (try? JSONValue.parse(body)) != nil ? "json" : "txt"
    }

    private static let commonTypes: [String: String] = [
        "image/jpeg": "jpeg", "image/gif": "gif", "image/tiff": "tiff", "image/png": "png", "image/x-icon": "ico",
        "image/svg+xml": "svg", "audio/x-aiff": "aiff", "video/x-ms-asf": "asf", "video/mpeg": "mp2", "audio/mpeg": "mp3",
        "video/quicktime": "mov", "application/pdf": "pdf",
    ]
}

extension ContentTypes {
    /// The media type of a `Content-Type` value, lowercased, without parameters.
    package static func mimeType(_ contentType: String) -> String {
        contentType.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// Whether WireMock counts a media type as text (`ContentTypes.determineIsTextFromMimeType`).
    package static func isWireMockText(_ mimeType: String) -> Bool {
        ["text", "json", "xml", "html", "yaml", "csv", "x-www-form-urlencoded"].contains { mimeType.contains($0) }
    }
}
