extension OpenAPIContract {
    /// Why a document cannot be used as a contract: what kind of failure it is, the document,
    /// what is wrong (with the place in the document when there is one), and how to fix it.
    ///
    /// Switch on ``code`` to tell failures apart; show ``description`` to people:
    ///
    /// ```swift
    /// do {
    ///     let contract = try OpenAPIContract(contentsOf: url)
    ///     …
    /// } catch {  // a LoadError: the initializer throws nothing else
    ///     switch error.code {
    ///     case .externalReference: print("bundle \(error.source) into one file first")
    ///     default: throw error
    ///     }
    /// }
    /// ```
    public struct LoadError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What kind of failure a ``LoadError`` is.
        ///
        /// An opaque value with a static member for each failure, so that kinds can be added
        /// without breaking a `switch`: compare with `==`, or switch with a `default`.
        public struct Code: Hashable, Sendable, CustomStringConvertible {
            private enum Base: Hashable, Sendable {
                case unreadable, invalidSyntax, tooLarge, notAnOpenAPIDocument, unsupportedVersion
                case invalidDocument, invalidReference, externalReference
            }

            private let base: Base

            /// The file cannot be read.
            public static let unreadable = Code(base: .unreadable)
            /// The text is not valid YAML or JSON, or not UTF-8; the ``LoadError/problem`` names
            /// the line and column when the parser knows them.
            public static let invalidSyntax = Code(base: .invalidSyntax)
            /// The YAML expands to too many values (aliases that repeat too much) or nests too
            /// deep to be read safely.
            public static let tooLarge = Code(base: .tooLarge)
            /// The document is empty, is not an object, or has no `openapi` field.
            public static let notAnOpenAPIDocument = Code(base: .notAnOpenAPIDocument)
            /// The document is Swagger 2.0, or an OpenAPI version other than 3.0 and 3.1.
            public static let unsupportedVersion = Code(base: .unsupportedVersion)
            /// The document breaks the OpenAPI specification (as OpenAPIKit reads it), or holds
            /// something other than an object where one is needed.
            public static let invalidDocument = Code(base: .invalidDocument)
            /// A `$ref` points at something the document does not have, cannot be read, or leads
            /// back to itself.
            public static let invalidReference = Code(base: .invalidReference)
            /// A `$ref` points into another file, which Airlock does not follow: bundle the
            /// document into one file first.
            public static let externalReference = Code(base: .externalReference)

            /// The code's name, such as `invalidReference`.
            public var description: String { "\(base)" }
        }

        /// What kind of failure this is.
        public var code: Code
        /// The document's path or name.
        public let source: String
        /// What is wrong, with the place in the document when there is one.
        public let problem: String
        /// How to fix it.
        public let fix: String

        init(_ code: Code, source: String, problem: String, fix: String) {
            self.code = code
            self.source = source
            self.problem = problem
            self.fix = fix
        }

        /// `openapi.yaml: it is a Swagger 2.0 document. Fix: convert it to OpenAPI 3 first (…).`
        public var description: String { "\(source): \(problem). Fix: \(fix)." }
    }
}
