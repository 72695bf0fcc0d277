import ArgumentParser
import Foundation
import MockServer

/// The redaction rules, as `airlock record` and `airlock redact` take them: the standard rules,
/// names added to each list, names taken out of every list, or none at all.
struct RedactionOptions: ParsableArguments {
    @Option(name: .customLong("header"), help: "Another header whose value is redacted (repeatable).")
    var headers: [String] = []

    @Option(name: .customLong("query"), help: "Another query item whose value is redacted, in request URLs and URL-valued headers (repeatable).")
    var queryItems: [String] = []

    @Option(name: .customLong("json-field"), help: "Another request body field whose value is redacted: JSON, form, multipart (repeatable).")
    var jsonFields: [String] = []

    @Option(name: .customLong("response-field"), help: "Another response body field whose value is redacted (repeatable); by default only unambiguous credentials such as access_token are.")
    var responseFields: [String] = []

    @Option(name: .customLong("keep"), help: "A name taken out of every list, so its values are kept (repeatable), such as --keep code.")
    var kept: [String] = []

    @Option(name: .customLong("placeholder"), help: ArgumentHelp("Hides the value of an environment variable behind a placeholder of your own wherever it stands as a whole token, such as --placeholder '<ACCOUNT_ID>=ACCOUNT_ID' (repeatable). The value never appears on the command line.", valueName: "placeholder=VARIABLE"))
    var placeholders: [String] = []

    @Flag(name: .customLong("no-redaction"), help: "Redact nothing. Never for files you share.")
    var noRedaction = false

    func validate() throws {
        for item in placeholders where Self.split(item) == nil {
            throw ValidationError("--placeholder \"\(item)\" is not PLACEHOLDER=VARIABLE; write it like --placeholder '<ACCOUNT_ID>=ACCOUNT_ID'.")
        }
    }

    /// Each `--placeholder` as its placeholder and variable.
    var placeholderPairs: [(placeholder: String, variable: String)] {
        placeholders.compactMap { Self.split($0) }
    }

    /// Checks that every `--placeholder` variable is set: a recording must hide its value.
    /// (`airlock cassette verify` does not ask: an entry whose variable is unset is not sent.)
    func requireVariables() throws {
        for item in placeholders {
            guard let (_, variable) = Self.split(item) else { continue }
            guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else {
                throw ValidationError("--placeholder \"\(item)\": the environment variable \(variable) is not set; export it with the value to hide.")
            }
            _ = value
        }
    }

    private static func split(_ item: String) -> (placeholder: String, variable: String)? {
        guard let equals = item.lastIndex(of: "="), equals != item.startIndex, item.index(after: equals) != item.endIndex else { return nil }
        return (String(item[..<equals]), String(item[item.index(after: equals)...]))
    }

    /// The rules these options describe.
    var redaction: Redaction {
        var redaction = Redaction.standard
        if noRedaction { redaction = .none }
        for item in placeholders {
            if let (placeholder, variable) = Self.split(item), let value = ProcessInfo.processInfo.environment[variable] {
                redaction.filter(value, as: placeholder)
            }
        }
        guard !noRedaction else { return redaction }
        redaction.headerNames.formUnion(headers.map { $0.lowercased() })
        redaction.queryItemNames.formUnion(queryItems.map { $0.lowercased() })
        redaction.jsonFields.formUnion(jsonFields.map { $0.lowercased() })
        redaction.responseFields.formUnion(responseFields.map { $0.lowercased() })
        for name in kept.map({ Redaction.normalize($0) }) {
            redaction.headerNames = redaction.headerNames.filter { Redaction.normalize($0) != name }
            redaction.queryItemNames = redaction.queryItemNames.filter { Redaction.normalize($0) != name }
            redaction.jsonFields = redaction.jsonFields.filter { Redaction.normalize($0) != name }
            redaction.responseFields = redaction.responseFields.filter { Redaction.normalize($0) != name }
        }
        return redaction
    }
}
