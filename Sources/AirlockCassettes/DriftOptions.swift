import AirlockCore
import Foundation

/// What ``Cassette/verify(against:options:send:)`` compares, what it leaves alone, and where the
/// secrets a recording hides come from.
///
/// By default a verification compares each entry's status, the media type of its
/// `Content-Type`, the *names* of its header fields, and the *shape* of a JSON body (members,
/// value types, the shape of array elements) or of a stream of server-sent events (how many
/// events, their names, the shape of their data) — not values, which usually change from run to
/// run:
///
/// ```swift
/// var options = DriftOptions()
/// options.ignoredFields = ["$.requestId", "$..updatedAt"]  // volatile: never compared
/// options.ignoredHeaders = ["Date", "X-Request-Id"]
/// options.comparedValues = ["$.status"]                    // values compared here
/// options.placeholders = ["<API_TOKEN>": "API_TOKEN"]      // filled from the environment
/// ```
///
/// Fields are JSON paths: `$.id`, `$.items[*].price`, `$['odd key']`, `$..updatedAt` (at any
/// depth), and each names everything under it too. For a stream they apply to each event's data.
public struct DriftOptions: Sendable {
    /// JSON paths never compared: neither their type, nor whether they are there.
    public var ignoredFields: [String]
    /// Header fields whose presence is not compared (any case). `Content-Length`,
    /// `Transfer-Encoding`, `Connection` and `Keep-Alive` never are: they describe one transfer.
    public var ignoredHeaders: [String]
    /// JSON paths whose values are compared too, not only their types (an array's length
    /// included). `$` compares every value.
    public var comparedValues: [String]
    /// Placeholders the recording's requests hold, each with the environment variable that
    /// holds its real value: `["<ACCOUNT_ID>": "ACCOUNT_ID", "[REDACTED]": "API_TOKEN"]`.
    ///
    /// A placeholder written as `<NAME>` (capital letters, digits and `_`, as `--placeholder
    /// '<NAME>=NAME'` records it) is filled from the variable `NAME` without being listed. An
    /// entry whose request holds a placeholder that has no value — or `[REDACTED]` with no
    /// variable for it — is not sent, and its report names the variable.
    public var placeholders: [String: String]
    /// Where placeholders' variables are read. Defaults to the process's environment.
    public var environment: [String: String]
    /// Checks one exchange beyond the recording, such as against an OpenAPI contract; returns
    /// each problem as a sentence. Called for every recorded exchange and every live one (with the
    /// request as recorded, placeholders in place), reported as ``Drift/Kind/contractViolation``.
    public var exchangeCheck: (@Sendable (RecordedRequest, RecordedResponse) -> [String])?

    /// Creates options; every argument has a default.
    /// - Parameters:
    ///   - ignoredFields: JSON paths never compared.
    ///   - ignoredHeaders: Header fields whose presence is not compared.
    ///   - comparedValues: JSON paths whose values are compared too.
    ///   - placeholders: Placeholders and the environment variables that fill them.
    ///   - environment: Where the variables are read.
    ///   - exchangeCheck: Checks each recorded and live exchange, such as against a contract.
    public init(
        ignoredFields: [String] = [],
        ignoredHeaders: [String] = [],
        comparedValues: [String] = [],
        placeholders: [String: String] = [:],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        exchangeCheck: (@Sendable (RecordedRequest, RecordedResponse) -> [String])? = nil
    ) {
        self.ignoredFields = ignoredFields
        self.ignoredHeaders = ignoredHeaders
        self.comparedValues = comparedValues
        self.placeholders = placeholders
        self.environment = environment
        self.exchangeCheck = exchangeCheck
    }

    /// Checks that every JSON path parses, before anything is sent.
    /// - Throws: ``CassetteError`` with code ``CassetteError/Code/invalidRule``, naming the path,
    ///   what is wrong with it and how paths are written.
    public func validate() throws(CassetteError) {
        _ = try rules()
    }

    /// The parsed rules: ignored, compared.
    func rules() throws(CassetteError) -> (ignored: [FieldRule], compared: [FieldRule]) {
        func parse(_ texts: [String], _ option: String) throws(CassetteError) -> [FieldRule] {
            var rules: [FieldRule] = []
            for text in texts {
                do {
                    rules.append(try FieldRule(text))
                } catch {
                    throw CassetteError(.invalidRule, file: nil, problem: "\(option) \(error.description)", fix: "Give a JSON path such as $.id, $.items[*].price, $['odd key'] or $..updatedAt.")
                }
            }
            return rules
        }
        return (try parse(ignoredFields, "the ignored field"), try parse(comparedValues, "the compared field"))
    }
}
