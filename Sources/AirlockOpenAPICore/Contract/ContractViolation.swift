import AirlockJSONSchema
/// A way a request or a response breaks its contract: which operation, which rule of the
/// document (by JSON pointer), which value, and what is wrong.
///
/// ```
/// createPets (POST /pets): the request body at /name is 3, which is not of type "string" (type at #/components/schemas/Pet/properties/name/type)
/// ```
///
/// Values are shown as the mock's redaction shows them: a secret header, query item or body
/// field never appears.
public struct ContractViolation: Sendable, Hashable, CustomStringConvertible {
    /// Which side of the exchange breaks the contract.
    public enum Side: String, Sendable, Hashable {
        /// What the app sent.
        case request
        /// What the mock (or the server, through a logger) answered.
        case response
    }

    /// Which side breaks the contract.
    public let side: Side
    /// The request's method and URL (redacted): `GET https://api.example.com/pets?limit=500`.
    public let request: String
    /// The operation the request was matched to; `nil` when the contract has no operation for it.
    public let operation: OpenAPIOperation?
    /// The rule broken: a JSON Schema keyword (`type`, `required`, `maximum`, …) or one of the
    /// contract's own (`path`, `method`, `parameter`, `body`, `content-type`, `security`,
    /// `status`, `header`).
    public let rule: String
    /// Where the rule is written in the contract.
    public let pointer: JSONPointer
    /// Where the offending value is in the exchange: `body at /pets/0/name`, `query parameter
    /// limit`, `header X-Rate-Limit`, `status`.
    public let location: String
    /// The offending value as text (JSON for a value of a JSON body), if there is one.
    public let value: String?
    /// What is wrong, in a sentence that starts after the location: `is 3, which is not of type
    /// "string"`.
    public let problem: String

    /// The whole message: operation, side, location, problem, rule and its place.
    public var description: String {
        let subject = operation.map(\.description) ?? request
        return "\(subject): the \(side.rawValue) \(location) \(problem) (\(rule) at \(pointer.fragment))"
    }
}
