import AirlockStubFiles

/// Which WireMock a folder of mappings is read as, where WireMock 2.35 and WireMock 3 read the
/// same mapping differently.
///
/// Two defaults changed between them: WireMock 3's standalone server inserts what `{{…}}`
/// renders without HTML escaping (2.35 escapes it; `{{{…}}}` is unescaped in both), and it reads
/// an `equalToXml` without `namespaceAwareness` as `STRICT` (2.35's reading is what WireMock 3
/// calls `LEGACY`). Everything else is read the same way whichever is chosen.
///
/// ```swift
/// let mappings = try WireMockMappings(directory: URL(fileURLWithPath: "src/test/resources"), version: .wireMock3)
/// ```
public enum WireMockVersion: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// WireMock 2.35, the default: `{{…}}` inserts HTML-escaped, `equalToXml` reads namespaces
    /// as `LEGACY`. Checked side by side with the 2.35.1 jar.
    case wireMock2 = 2
    /// WireMock 3: `{{…}}` inserts what it renders as it is, and an `equalToXml` without
    /// `namespaceAwareness` is `STRICT`. Follows WireMock 3's documentation (its jar is not
    /// available here to compare against).
    case wireMock3 = 3

    /// `2` or `3`, as `airlock serve --wiremock-version` takes it.
    public var description: String { String(rawValue) }

    /// Whether `{{…}}` inserts HTML-escaped.
    var escapesTemplates: Bool { self == .wireMock2 }

    /// How a template's `{{…}}` inserts values, for this version.
    var insertedEscaping: ResponseTemplate.Escaping { escapesTemplates ? .html : .none }

    /// `equalToXml`'s reading when the mapping gives no `namespaceAwareness`.
    var namespaceAwareness: WireMockXMLNamespaceAwareness { self == .wireMock2 ? .legacy : .strict }

    /// The version the mapping being read is read as (set around the reading, never at a
    /// request: what depends on it is decided when the mapping is read).
    @TaskLocal static var reading: WireMockVersion = .wireMock2

    /// Runs `body`, which reads mappings, as `version` reads them.
    package static func reading<Result>(as version: WireMockVersion, _ body: () throws(StubFileError) -> Result) throws(StubFileError) -> Result {
        let outcome: Swift.Result<Result, StubFileError> = $reading.withValue(version) {
            Swift.Result { () throws(StubFileError) -> Result in try body() }
        }
        return try outcome.get()
    }
}
