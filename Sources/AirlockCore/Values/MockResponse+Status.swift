import AirlockBase

extension MockResponse {
    /// The HTTP status of a mocked response.
    ///
    /// Named cases cover the statuses tests reach for; ``other(_:)`` carries any code. Two statuses
    /// are equal when their codes are, so `.other(404) == .notFound`. An integer literal works too:
    /// `status: 201`.
    public enum Status: Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
        /// 200 OK.
        case ok
        /// 201 Created.
        case created
        /// 202 Accepted.
        case accepted
        /// 204 No Content.
        case noContent
        /// 301 Moved Permanently.
        case movedPermanently
        /// 302 Found.
        case found
        /// 304 Not Modified.
        case notModified
        /// 307 Temporary Redirect.
        case temporaryRedirect
        /// 308 Permanent Redirect.
        case permanentRedirect
        /// 400 Bad Request.
        case badRequest
        /// 401 Unauthorized.
        case unauthorized
        /// 403 Forbidden.
        case forbidden
        /// 404 Not Found.
        case notFound
        /// 405 Method Not Allowed.
        case methodNotAllowed
        /// 409 Conflict.
        case conflict
        /// 410 Gone.
        case gone
        /// 422 Unprocessable Content.
        case unprocessableEntity
        /// 429 Too Many Requests.
        case tooManyRequests
        /// 500 Internal Server Error.
        case internalServerError
        /// 501 Not Implemented.
        case notImplemented
        /// 502 Bad Gateway.
        case badGateway
        /// 503 Service Unavailable.
        case serviceUnavailable
        /// 504 Gateway Timeout.
        case gatewayTimeout
        /// Any other status code.
        case other(Int)

        private static let named: [(Status, Int)] = [
            (.ok, 200), (.created, 201), (.accepted, 202), (.noContent, 204),
            (.movedPermanently, 301), (.found, 302), (.notModified, 304),
            (.temporaryRedirect, 307), (.permanentRedirect, 308),
            (.badRequest, 400), (.unauthorized, 401), (.forbidden, 403), (.notFound, 404),
            (.methodNotAllowed, 405), (.conflict, 409), (.gone, 410), (.unprocessableEntity, 422),
            (.tooManyRequests, 429), (.internalServerError, 500), (.notImplemented, 501),
            (.badGateway, 502), (.serviceUnavailable, 503), (.gatewayTimeout, 504),
        ]

        /// The numeric status code.
        public var code: Int {
            switch self {
            case .ok: 200
            case .created: 201
            case .accepted: 202
            case .noContent: 204
            case .movedPermanently: 301
            case .found: 302
            case .notModified: 304
            case .temporaryRedirect: 307
            case .permanentRedirect: 308
            case .badRequest: 400
            case .unauthorized: 401
            case .forbidden: 403
            case .notFound: 404
            case .methodNotAllowed: 405
            case .conflict: 409
            case .gone: 410
            case .unprocessableEntity: 422
            case .tooManyRequests: 429
            case .internalServerError: 500
            case .notImplemented: 501
            case .badGateway: 502
            case .serviceUnavailable: 503
            case .gatewayTimeout: 504
            case .other(let code): code
            }
        }

        /// Creates the status for a code, using the named case when there is one.
        /// - Parameter code: An HTTP status code.
        public init(code: Int) {
            self = Self.named.first { $0.1 == code }?.0 ?? .other(code)
        }

        /// Creates a status from an integer literal: `status: 201`.
        /// - Parameter value: An HTTP status code.
        public init(integerLiteral value: Int) {
            self.init(code: value)
        }

        /// Whether the code is a valid HTTP status (100–599).
        public var isValid: Bool { ResponseLimits.statusCodes.contains(code) }

        /// The numeric code as text.
        public var description: String { String(code) }

        /// Whether two statuses carry the same code.
        public static func == (lhs: Status, rhs: Status) -> Bool { lhs.code == rhs.code }

        /// Hashes the code, consistently with `==`.
        public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    }
}
