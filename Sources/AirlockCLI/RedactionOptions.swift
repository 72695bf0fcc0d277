import ArgumentParser
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

    @Flag(name: .customLong("no-redaction"), help: "Redact nothing. Never for files you share.")
    var noRedaction = false

    /// The rules these options describe.
    var redaction: Redaction {
        guard !noRedaction else { return .none }
        var redaction = Redaction.standard
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
