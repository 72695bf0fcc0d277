import AirlockStubFiles

/// A cassette that cannot be used, or WireMock mappings that cannot be written: what kind of
/// failure it is, which file, what is wrong, and how to fix it.
///
/// Switch on ``code`` to tell failures apart; show ``description`` to people:
///
/// ```swift
/// do {
///     let cassette = try Cassette(contentsOf: url, mode: .none)
///     …
/// } catch {  // a CassetteError: the initializer throws nothing else
///     switch error.code {
///     case .invalidFile: print(error.fileError?.location ?? "")  // log.entries[0].startedDateTime
///     default: throw error
///     }
/// }
/// ```
public struct CassetteError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure a ``CassetteError`` is.
    ///
    /// An opaque value with a static member for each failure, so that kinds can be added without
    /// breaking a `switch`: compare with `==`, or switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case invalidRecordMode, noCurrentCassette, invalidFile, writeFailed
            case unreadable, notAFolder, folderNotEmpty
            case invalidRule, invalidBaseURL, expired, invalidMaxAge, upstreamTrustUnusable
        }

        private let base: Base

        /// `AIRLOCK_RECORD` is set to something that is not a ``Cassette/RecordMode``.
        public static let invalidRecordMode = Code(base: .invalidRecordMode)
        /// ``Cassette/current()`` was called in a test without the `.cassette` trait.
        public static let noCurrentCassette = Code(base: .noCurrentCassette)
        /// The cassette's file is not a HAR file Airlock can replay; ``CassetteError/fileError``
        /// says where and why.
        public static let invalidFile = Code(base: .invalidFile)
        /// A file or folder cannot be made, written or removed: the cassette when it is saved,
        /// or WireMock mappings written from a recording.
        public static let writeFailed = Code(base: .writeFailed)
        /// The folder for WireMock mappings cannot be read.
        public static let unreadable = Code(base: .unreadable)
        /// The folder for WireMock mappings is a file.
        public static let notAFolder = Code(base: .notAFolder)
        /// The folder for WireMock mappings is not empty, and its contents may not be replaced.
        public static let folderNotEmpty = Code(base: .folderNotEmpty)
        /// A JSON path given to a verification (``DriftOptions``) does not parse.
        public static let invalidRule = Code(base: .invalidRule)
        /// The base URL a cassette is verified against is not an `http(s)` URL with a host.
        public static let invalidBaseURL = Code(base: .invalidBaseURL)
        /// The cassette is older than its maximum age, and this run may not record it again
        /// (`CI` is set, or the mode is `none`).
        public static let expired = Code(base: .expired)
        /// A maximum age (`_maxAge` in the file, `--max-age`) is not a duration such as `30d`.
        public static let invalidMaxAge = Code(base: .invalidMaxAge)
        /// A file of certificates to trust for the live service (`verify(against:options:timeout:trusting:)`,
        /// `airlock cassette verify --upstream-ca`) cannot be read or holds no PEM certificate.
        public static let upstreamTrustUnusable = Code(base: .upstreamTrustUnusable)

        /// The code's name, such as `invalidFile`.
        public var description: String { "\(base)" }
    }

    /// What kind of failure this is.
    public var code: Code
    /// The cassette file (or folder), when one is concerned.
    public let file: String?
    /// What is wrong.
    public let problem: String
    /// How to fix it.
    public let fix: String
    /// Why the file cannot be read as a HAR file, for ``Code/invalidFile``: its `code` says what
    /// is wrong, its `location` where.
    public var fileError: StubFileError?

    /// Creates an error.
    /// - Parameters:
    ///   - code: What kind of failure it is.
    ///   - file: The cassette file (or folder), when one is concerned.
    ///   - problem: What is wrong.
    ///   - fix: How to fix it, as a sentence.
    ///   - fileError: Why the file cannot be read as a HAR file, for ``Code/invalidFile``.
    public init(_ code: Code, file: String?, problem: String, fix: String, fileError: StubFileError? = nil) {
        self.code = code
        self.file = file
        self.problem = problem
        self.fix = fix
        self.fileError = fileError
    }

    /// Creates an error whose ``code`` is ``Code/invalidFile``.
    @available(*, deprecated, message: "Use init(_:file:problem:fix:fileError:), which takes the code of the failure.")
    public init(file: String?, problem: String, fix: String) {
        self.init(.invalidFile, file: file, problem: problem, fix: fix)
    }

    /// `Airlock cassette users.har: … Fix: …`.
    public var description: String {
        "Airlock cassette\(file.map { " \($0)" } ?? ""): \(problem). \(fix)"
    }
}
