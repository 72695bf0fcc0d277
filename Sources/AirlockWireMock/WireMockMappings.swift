import AirlockBase
import AirlockCassettes
@_spi(AirlockTransport) import AirlockCore
import AirlockStubFiles
import Foundation

/// A folder of WireMock stub mappings — `mappings/*.json` and the `__files/` their
/// `bodyFileName`s name — read and checked, ready to register with `registerStubs(_:)`.
///
/// ```
/// src/test/resources/
/// ├── mappings/
/// │   ├── get-user.json        {"request": {...}, "response": {...}}
/// │   └── orders.json          {"mappings": [{...}, {...}]}
/// └── __files/
///     └── user.json
/// ```
///
/// Give the folder that holds `mappings/` (WireMock's `--root-dir`); the `mappings` folder itself
/// works too. Files are read in the order of their paths, every `.json` file under `mappings/`
/// (sub-folders included); each holds one mapping or `{"mappings": [...]}`.
///
/// Mappings keep WireMock's meaning: each answers every request it matches (its response is
/// never used up), the lowest `priority` wins (5 when none is given) and, among mappings of the
/// same priority, the one added last. Stubs registered in Swift rank as priority 5, ahead of the
/// mappings of priority 5, so a test can override a team's mapping for one case.
///
/// A field Airlock does not support — `customMatcher`, a transformer other than
/// `response-template`, a JSON Schema draft other than 4 and 2020-12 — is refused when the folder
/// is read: the `StubFileError` names the file, the field's JSON path
/// (`request.bodyPatterns[0].matchesJsonSchema`) and what to use instead. What WireMock itself
/// drops (a second matcher in one object, a second url field) Airlock drops too, and says so in
/// ``warnings``. Nothing is left out silently. The XML matchers (`equalToXml`, `matchesXPath`)
/// need the XML engine of the `AirlockWireMockXML` product, which `MockServer` and
/// `airlock serve` install; elsewhere, call `WireMockXML.install()` before reading mappings that
/// use them.
public struct WireMockMappings: Sendable {
    /// The mappings, in the order they were read.
    package let mappings: [StubMapping]
    /// The folder that holds `mappings/` and `__files/`.
    public let rootDirectory: URL

    /// The mappings left out, each with why, when the folder was read with `skippingUnsupported`.
    public let skipped: [StubFileError]

    /// How many mappings the folder holds (those read; ``skipped`` has the others).
    public var mappingCount: Int { mappings.count }

    /// What the mappings have that WireMock drops, and Airlock drops too, to serve the folder
    /// as WireMock serves it: a second url field, a second matcher in one object,
    /// `"absent": false` (read as absent), an `expression` beside a matcher other than
    /// `matchesJsonPath`. One line each, naming the file, the field and what to write instead;
    /// `registerStubs(_:)` reports them as registration warnings (standard error for `HTTPMock`,
    /// the log of `MockServer` and `airlock serve`).
    public var warnings: [String] { mappings.flatMap(\.warnings) }

    /// Reads every mapping under `directory/mappings`, with `bodyFileName`s in `directory/__files`.
    /// - Parameters:
    ///   - directory: The folder that holds `mappings/` (or the `mappings` folder itself).
    ///   - skippingUnsupported: `false` (the default) throws at the first mapping that cannot be
    ///     read; `true` leaves each such mapping (or unreadable file) out and lists why in
    ///     ``skipped``, for a first look at a folder that holds some Airlock cannot serve.
    ///   - version: Which WireMock the folder is written for, where WireMock 2.35 and 3 read a
    ///     mapping differently (``WireMockVersion``); WireMock 2.35 when not given.
    /// - Throws: `StubFileError` naming the file, the field and what was expected.
    public init(directory: URL, skippingUnsupported: Bool = false, version: WireMockVersion = .wireMock2) throws(StubFileError) {
        self = try WireMockVersion.reading(as: version) { () throws(StubFileError) in try WireMockMappings(reading: directory, skippingUnsupported: skippingUnsupported) }
    }

    private init(reading directory: URL, skippingUnsupported: Bool) throws(StubFileError) {
        let root = Self.root(for: directory)
        let mappingsFolder = root.appendingPathComponent("mappings", isDirectory: true)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: mappingsFolder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw StubFileError(
                .unreadable,
                file: directory.path,
                location: nil,
                problem: "has no mappings folder (looked for \(mappingsFolder.path))",
                expected: "WireMock's root folder, which holds mappings/ (and __files/ for bodyFileName)"
            )
        }
        var mappings: [StubMapping] = []
        var skipped: [StubFileError] = []
        let files = Self.files(root: root)
        for url in Self.jsonFiles(in: mappingsFolder) {
            do {
                let data = try StubFileError.contents(of: url, expected: "a readable WireMock mapping file")
                let document = try JSONNode.parse(data, source: url.path, expected: "a WireMock mapping or {\"mappings\": [...]}")
                let read = try StubMapping.mappings(in: document, files: files, file: url, skipping: skippingUnsupported)
                mappings += read.mappings
                skipped += read.skipped
            } catch {
                guard skippingUnsupported else { throw error }
                skipped.append(error)
            }
        }
        self.mappings = mappings
        self.skipped = skipped
        rootDirectory = root
    }

    /// Reads mappings from JSON: one mapping or `{"mappings": [...]}`.
    /// - Parameters:
    ///   - data: The JSON.
    ///   - source: How errors name it (a path, or `request body`).
    ///   - rootDirectory: The folder whose `__files/` holds the files `bodyFileName` names.
    ///   - version: Which WireMock the JSON is written for (``WireMockVersion``); WireMock 2.35
    ///     when not given.
    /// - Throws: `StubFileError` naming the source, the field and what was expected.
    public init(data: Data, source: String, rootDirectory: URL, version: WireMockVersion = .wireMock2) throws(StubFileError) {
        let document = try JSONNode.parse(data, source: source, expected: "a WireMock mapping or {\"mappings\": [...]}")
        mappings = try WireMockVersion.reading(as: version) { () throws(StubFileError) in
            try StubMapping.mappings(in: document, files: Self.files(root: rootDirectory), file: nil).mappings
        }
        skipped = []
        self.rootDirectory = rootDirectory
    }

    /// The root for a folder given: itself, or its parent when it is the `mappings` folder.
    private static func root(for directory: URL) -> URL {
        let nested = directory.appendingPathComponent("mappings", isDirectory: true)
        if !FileManager.default.fileExists(atPath: nested.path), directory.lastPathComponent == "mappings" {
            return directory.deletingLastPathComponent()
        }
        return directory
    }

    /// Files named by `bodyFileName`: inside `__files`, as WireMock serves them.
    package static func files(root: URL) -> ResponseFile.Access {
        .inside(root.appendingPathComponent("__files", isDirectory: true), expected: "a file inside the __files folder beside mappings/")
    }

    /// Every `.json` file under a folder, sorted by path.
    private static func jsonFiles(in folder: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var found: [URL] = []
        for case let url as URL in enumerator where url.pathExtension.lowercased() == "json" {
            found.append(url)
        }
        return found.sorted { $0.path < $1.path }
    }
}

extension Mocking {
    /// Registers a folder of WireMock mappings (see ``WireMockMappings``).
    ///
    /// ```swift
    /// try mock.registerStubs(WireMockMappings(directory: URL(fileURLWithPath: "src/test/resources")))
    /// ```
    ///
    /// - Parameter mappings: The mappings, read and checked.
    /// - Returns: The mappings rejected, each saying why (also in `registrationErrors`).
    @discardableResult
    public func registerStubs(_ mappings: WireMockMappings) -> [RegistrationError] {
        registry.register(mappings.mappings)
    }
}
