import Foundation

/// JSON written with its members in a chosen order — as a WireMock mapping lists its fields and
/// a response's header fields — pretty-printed the way WireMock's Jackson writes mapping files
/// (`"name" : value`, two spaces a level). ``JSONValue`` compares documents; this writes them.
enum OrderedJSON: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case bool(Bool)
    case array([OrderedJSON])
    case object([(String, OrderedJSON)])

    static func == (lhs: OrderedJSON, rhs: OrderedJSON) -> Bool {
        lhs.text() == rhs.text()
    }

    /// The document, pretty-printed, ending with a newline.
    var data: Data { Data((text(indent: "") + "\n").utf8) }

    /// The value as JSON text, nested lines indented from `indent`.
    func text(indent: String = "") -> String {
        switch self {
        case .string(let value): return Self.quoted(value)
        case .integer(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        case .array(let items):
            guard !items.isEmpty else { return "[ ]" }
            let inner = indent + "  "
            return "[ " + items.map { $0.text(indent: inner) }.joined(separator: ", ") + " ]"
        case .object(let members):
            guard !members.isEmpty else { return "{ }" }
            let inner = indent + "  "
            let lines = members.map { inner + Self.quoted($0.0) + " : " + $0.1.text(indent: inner) }
            return "{\n" + lines.joined(separator: ",\n") + "\n" + indent + "}"
        }
    }

    /// A JSON string: quotes, backslashes and control characters escaped, everything else as is
    /// (so the UTF-8 read back is the UTF-8 written). Messages quote names with it too, so that
    /// control characters show.
    static func quoted(_ value: String) -> String {
        var out = "\""
        out.unicodeScalars.reserveCapacity(value.unicodeScalars.count + 2)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += String(format: "\\u%04X", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
