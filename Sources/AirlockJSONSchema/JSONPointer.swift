import AirlockBase
import Foundation

/// A JSON Pointer (RFC 6901): the place of a value inside a JSON document, as reference tokens.
///
/// Violations name two of them: where the offending value sits in the request or response
/// (`/pets/0/name`), and which rule of the contract it broke
/// (`#/components/schemas/Pet/required`), written in the URI fragment form OpenAPI's `$ref`s use.
public struct JSONPointer: Hashable, Sendable, CustomStringConvertible {
    /// The reference tokens, unescaped: `["paths", "/pets", "get"]`.
    public var tokens: [String]

    /// The pointer to the given tokens; no tokens is the whole document.
    public init(_ tokens: [String] = []) {
        self.tokens = tokens
    }

    /// Reads a pointer in its JSON String form (`/paths/~1pets/get`) or its URI fragment form
    /// (`#/paths/~1pets/get`, percent-encoded as in a `$ref`).
    /// - Throws: ``JSONPointer/ParseError`` when the text is neither: a token must start with `/`,
    ///   and `~` must be followed by `0` or `1`.
    public init(parsing text: String) throws(ParseError) {
        var body = Substring(text)
        if body.hasPrefix("#") {
            body = body.dropFirst()
            guard let decoded = String(body).removingPercentEncoding else {
                throw ParseError(text: text, problem: "its percent-encoding is not valid")
            }
            body = Substring(decoded)
        }
        guard !body.isEmpty else {
            self.init()
            return
        }
        guard body.hasPrefix("/") else {
            throw ParseError(text: text, problem: "it must be empty or start with \"/\"")
        }
        var tokens: [String] = []
        for raw in body.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var escaping = false
            for character in raw {
                if escaping {
                    switch character {
                    case "0": token.append("~")
                    case "1": token.append("/")
                    default: throw ParseError(text: text, problem: "\"~\" must be followed by 0 or 1, not \(character)")
                    }
                    escaping = false
                } else if character == "~" {
                    escaping = true
                } else {
                    token.append(character)
                }
            }
            if escaping { throw ParseError(text: text, problem: "it ends in a lone \"~\"") }
            tokens.append(token)
        }
        self.init(tokens)
    }

    /// This pointer followed by one more token.
    public func appending(_ token: String) -> JSONPointer {
        JSONPointer(tokens + [token])
    }

    /// This pointer followed by an array index.
    public func appending(_ index: Int) -> JSONPointer {
        appending(String(index))
    }

    /// This pointer followed by every token of `other`.
    public func appending(_ other: JSONPointer) -> JSONPointer {
        JSONPointer(tokens + other.tokens)
    }

    /// Whether `other` is this pointer or inside it.
    public func contains(_ other: JSONPointer) -> Bool {
        other.tokens.starts(with: tokens)
    }

    /// The pointer in its JSON String form: `/paths/~1pets/get`; the empty string for the whole
    /// document.
    public var description: String {
        tokens.map { "/" + Self.escape($0) }.joined()
    }

    /// The pointer in the URI fragment form a `$ref` uses: `#/paths/~1pets/get`. Only characters a
    /// fragment cannot hold are percent-encoded (a space, `%`, `"`, `{`, `}`, …), so the pointer
    /// reads as written in the document.
    public var fragment: String {
        "#" + description.unicodeScalars.map { scalar -> String in
            Self.fragmentAllowed.contains(scalar) ? String(scalar) : String(scalar).utf8.map { byte in
                "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }.joined()
        }.joined()
    }

    /// Characters a URI fragment holds as they are (RFC 3986: pchar, `/` and `?`).
    private static let fragmentAllowed: Set<Unicode.Scalar> = {
        var allowed = Set<Unicode.Scalar>()
        for range in [("a", "z"), ("A", "Z"), ("0", "9")] {
            for value in range.0.unicodeScalars.first!.value...range.1.unicodeScalars.first!.value {
                allowed.insert(Unicode.Scalar(value)!)
            }
        }
        allowed.formUnion("-._~!$&'()*+,;=:@/?".unicodeScalars)
        return allowed
    }()

    /// `~` as `~0` and `/` as `~1`.
    static func escape(_ token: String) -> String {
        token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    /// Why a text is not a JSON Pointer.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The text as given.
        public let text: String
        /// What is wrong with it.
        public let problem: String

        /// `"pets" is not a JSON Pointer: it must be empty or start with "/"`.
        public var description: String { "\"\(text)\" is not a JSON Pointer: \(problem)" }
    }
}

extension JSONValue {
    /// The value `pointer` names in this document, or `nil` when there is none (a missing member,
    /// an index out of range or not a number, or a token into a scalar).
    package subscript(pointer: JSONPointer) -> JSONValue? {
        var current = self
        for token in pointer.tokens {
            switch current {
            case .object(let members):
                guard let next = members[token] else { return nil }
                current = next
            case .array(let elements):
                guard let index = Int(token), String(index) == token, elements.indices.contains(index) else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }
}
