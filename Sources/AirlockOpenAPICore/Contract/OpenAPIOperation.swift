import AirlockJSONSchema
@_spi(AirlockTransport) import AirlockCore

/// One operation of a contract: a method on a path template.
public struct OpenAPIOperation: Sendable, Hashable, CustomStringConvertible {
    /// The operation's `operationId`, if it has one.
    public let operationID: String?
    /// The method, uppercased: `GET`.
    public let method: String
    /// The path template as the document writes it: `/pets/{petId}`.
    public let path: String
    /// Where the operation is in the document: `#/paths/~1pets~1{petId}/get`.
    public let pointer: JSONPointer

    /// The `operationId`, or `GET /pets/{petId}` for an operation without one.
    public var name: String { operationID ?? "\(method) \(path)" }

    /// `showPetById (GET /pets/{petId})`, or `GET /pets/{petId}`.
    public var description: String {
        operationID.map { "\($0) (\(method) \(path))" } ?? "\(method) \(path)"
    }
}

/// An operation with everything its checks need, each part with its place in the document.
struct ContractOperation: Sendable {
    let `public`: OpenAPIOperation
    /// Path-level and operation-level parameters; the operation's replace the path's of the same
    /// name and location.
    let parameters: [ParameterRule]
    let body: BodyRule?
    /// The responses in document order.
    let responses: [ResponseRule]
    /// The alternatives of which one must be met (each a set of schemes all present); `nil` or
    /// one empty alternative when none is needed.
    let security: [[String]]?
    /// Where `security` is written (the operation's, or the document's).
    let securityPointer: JSONPointer

    var method: String { `public`.method }
    var path: String { `public`.path }
}

/// A parameter of an operation.
struct ParameterRule: Sendable {
    enum Location: String, Sendable {
        case path, query, header, cookie
    }

    /// How a value is written (`style`), with its default per location.
    enum Style: String, Sendable {
        case matrix, label, form, simple, spaceDelimited, pipeDelimited, deepObject
    }

    let name: String
    let location: Location
    let required: Bool
    let style: Style
    let explode: Bool
    let allowEmptyValue: Bool
    /// The schema (`schema`), or the schema of the one media type of `content`.
    let schema: JSONPointer?
    /// The media type when the value is given as `content` (its text is then that media type:
    /// JSON).
    let contentType: String?
    /// The parameter object.
    let pointer: JSONPointer
}

/// The request body of an operation.
struct BodyRule: Sendable {
    let required: Bool
    let content: [MediaTypeRule]
    let pointer: JSONPointer
}

/// A media type of a body (`content` entry).
struct MediaTypeRule: Sendable {
    /// The key as written, lowercased: `application/json`, `application/*+json`, `*/*`.
    let mediaType: String
    let schema: JSONPointer?
    let pointer: JSONPointer
}

/// A response of an operation (`200`, `2XX` or `default`).
struct ResponseRule: Sendable {
    /// The key as written, uppercased: `200`, `2XX`, `DEFAULT`.
    let key: String
    let headers: [HeaderRule]
    let content: [MediaTypeRule]
    let pointer: JSONPointer

    /// Whether the response answers for `status`: its own code, its range, or anything
    /// (`default`).
    func covers(_ status: Int) -> Bool {
        if key == "DEFAULT" { return true }
        if key.count == 3, key.hasSuffix("XX"), let first = key.first?.wholeNumberValue { return status / 100 == first }
        return Int(key) == status
    }

    /// How closely it answers for a status: the code itself, then its range, then `default`.
    var precedence: Int {
        key == "DEFAULT" ? 2 : key.hasSuffix("XX") ? 1 : 0
    }
}

/// A header of a response.
struct HeaderRule: Sendable {
    let name: String
    let required: Bool
    let schema: JSONPointer?
    let pointer: JSONPointer
}
