import AirlockBase
import AirlockCassettes
import AirlockCore
import AirlockStubFiles
import Foundation
import HTTPTypes

/// A cassette's exchanges as a WireMock root folder — `mappings/` and `__files/` in the shape
/// WireMock's own recorder (its snapshot) writes — so that WireMock, or Airlock reading the
/// folder with ``WireMockMappings``, replays what the cassette replays.
///
/// ```swift
/// let archive = try HTTPArchive(contentsOf: URL(fileURLWithPath: "Fixtures/users.har"))
/// try WireMockSnapshot(archive).write(to: URL(fileURLWithPath: "src/test/resources"))
/// ```
///
/// Each exchange becomes `mappings/<name>-<id>.json`, with `id`, `name`, `request`, `response`,
/// `uuid`, `persistent` and `insertionIndex`, as WireMock records:
/// - **request**: the method and `url` (the path and query as sent); with a query, `urlPath` and
///   one `queryParameters` entry per name, as WireMock's recorder writes it. A body becomes a
///   `bodyPatterns` entry: `equalToJson` with `ignoreArrayOrder` and `ignoreExtraElements` for a
///   JSON `Content-Type`, `binaryEqualTo` for a body that is not text, `equalTo` otherwise. A
///   value redaction hid (`[REDACTED]`) matches any value, as it does in the cassette
///   (`${json-unit.ignore}` in JSON, a regular expression in a path or form).
/// - **response**: the status, every header field in recorded order (a name given more than
///   once as an array of its values, in order), and the body: inline `body` for text of up to
///   10 240 characters whose UTF-8 reads back byte for byte, otherwise `bodyFileName` naming
///   `__files/<name>-<id>.<ext>`, which holds the recorded bytes exactly.
/// - Identical requests with several recorded responses become a WireMock **scenario**, as
///   WireMock's `repeatsAsScenarios` makes them: the first needs the state `Started` and moves
///   to the next, so the responses come back in recorded order (the last keeps answering).
///
/// A body the cassette keeps in its `Content-Encoding` (what `airlock record` receives) is
/// written with those bytes and that header; a body it keeps decoded, without the header —
/// what a replay of the cassette over a socket sends. `Content-Length`, `Transfer-Encoding`,
/// `Connection` and `Keep-Alive` are left out, as the cassette's replay leaves them out.
///
/// > Note: a JSON object cannot hold one header name twice, so fields of one name that were
/// > separated by others (`Set-Cookie`, `Content-Type`, `Set-Cookie`) are listed together where
/// > the name first occurs. Their values keep their order.
public struct WireMockSnapshot: Sendable {
    /// One file of the folder.
    public struct File: Sendable, Equatable {
        /// Its path inside the root folder: `mappings/users-….json` or `__files/users-….json`.
        public let path: String
        /// Its bytes.
        public let contents: Data
    }

    /// The files, mappings first, in recorded order.
    public let files: [File]
    /// How many mappings the folder holds (one per exchange).
    public let mappingCount: Int

    /// The exchanges of an archive as mappings, with credentials hidden by `redaction`.
    ///
    /// A cassette Airlock recorded is already redacted; the rules apply again for a HAR file
    /// from elsewhere (a browser's export), as `data(redaction:)` applies them.
    /// - Parameters:
    ///   - archive: The exchanges, such as a cassette's file read with `init(contentsOf:)`.
    ///   - redaction: What to hide. Defaults to `standard`; its placeholders match
    ///     any value in the mappings' request patterns.
    public init(_ archive: HTTPArchive, redaction: Redaction = .standard) {
        let placeholders = redaction.placeholders.sorted()
        var drafts: [Draft] = []
        for (index, entry) in archive.entries.enumerated() {
            guard let response = entry.response, let status = response.status else { continue }
            let clean = redaction.apply(to: entry)
            drafts.append(Draft(entry: clean, response: clean.response ?? response, status: status, index: index, placeholders: placeholders))
        }
        Self.putRepeatsInScenarios(&drafts)
        var mappings: [File] = []
        var bodies: [File] = []
        for (insertionIndex, draft) in drafts.enumerated() {
            let (mapping, body) = draft.files(insertionIndex: insertionIndex)
            mappings.append(mapping)
            if let body { bodies.append(body) }
        }
        files = mappings + bodies
        mappingCount = mappings.count
    }

    /// Writes the folder: `mappings/` and `__files/` inside `directory`, which is made if it
    /// does not exist.
    /// - Parameters:
    ///   - directory: WireMock's root folder (its `--root-dir`).
    ///   - replacingContents: Whether a folder that is not empty may be used: its `mappings/`
    ///     and `__files/` are then removed first (nothing else in it is touched). Defaults to
    ///     `false`: a folder that is not empty is an error, so that no mapping is lost.
    /// - Throws: `CassetteError` naming the folder, what is wrong and how to fix it.
    public func write(to directory: URL, replacingContents: Bool = false) throws(CassetteError) {
        try Self.prepare(directory, replacingContents: replacingContents)
        // `mappings/` even when there is no exchange, so that the folder serves (answering nothing).
        do {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("mappings", isDirectory: true), withIntermediateDirectories: true)
        } catch {
            throw CassetteError(
                .writeFailed,
                file: directory.path,
                problem: "cannot be made (\(error.localizedDescription))",
                fix: "Check that its parent folder is writable, or write the mappings to another folder."
            )
        }
        for file in files {
            let url = directory.appendingPathComponent(file.path)
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try file.contents.write(to: url, options: .atomic)
            } catch {
                throw CassetteError(
                    .writeFailed,
                    file: url.path,
                    problem: "cannot be written (\(error.localizedDescription))",
                    fix: "Check that \(directory.path) is writable, or write the mappings to another folder."
                )
            }
        }
    }

    /// Checks that `directory` can take the mappings, emptying its `mappings/` and `__files/`
    /// when `replacingContents` allows it.
    /// - Parameters:
    ///   - directory: WireMock's root folder.
    ///   - replacingContents: Whether a folder that is not empty may be used.
    /// - Throws: `CassetteError` when it is a file, not empty (unless allowed) or cannot be read.
    package static func prepare(_ directory: URL, replacingContents: Bool) throws(CassetteError) {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        guard manager.fileExists(atPath: directory.path, isDirectory: &isFolder) else { return }
        guard isFolder.boolValue else {
            throw CassetteError(.notAFolder, file: directory.path, problem: "is a file, not a folder", fix: "Give a folder for WireMock's mappings/ and __files/ (it is made if it does not exist).")
        }
        let contents: [String]
        do {
            contents = try manager.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw CassetteError(.unreadable, file: directory.path, problem: "cannot be read (\(error.localizedDescription))", fix: "Check its permissions, or write the mappings to another folder.")
        }
        guard !contents.isEmpty else { return }
        guard replacingContents else {
            throw CassetteError(
                .folderNotEmpty,
                file: directory.path,
                problem: "is not empty (it holds \(contents.sorted().prefix(3).joined(separator: ", "))\(contents.count > 3 ? ", …" : ""))",
                fix: "Write the mappings to a new or empty folder, or pass --force to replace its mappings/ and __files/."
            )
        }
        for name in ["mappings", "__files"] where contents.contains(name) {
            do {
                try manager.removeItem(at: directory.appendingPathComponent(name))
            } catch {
                throw CassetteError(.writeFailed, file: directory.appendingPathComponent(name).path, problem: "cannot be removed (\(error.localizedDescription))", fix: "Check its permissions, or write the mappings to another folder.")
            }
        }
    }

    /// Identical requests in one scenario each, as WireMock's `ScenarioProcessor` names them:
    /// `scenario-<n>-<path-parts>`, states `Started`, `scenario-<n>-<path-parts>-2`, …
    private static func putRepeatsInScenarios(_ drafts: inout [Draft]) {
        var groups: [String: [Int]] = [:]
        var order: [String] = []
        for (index, draft) in drafts.enumerated() {
            let key = String(decoding: draft.request.prettyText, as: UTF8.self)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(index)
        }
        var scenarioIndex = 0
        for key in order {
            guard let members = groups[key], members.count > 1 else { continue }
            scenarioIndex += 1
            let name = "scenario-\(scenarioIndex)-" + drafts[members[0]].pathParts
            for (position, member) in members.enumerated() {
                let step = position + 1
                drafts[member].scenario = Draft.Scenario(
                    name: name,
                    required: step == 1 ? "Started" : "\(name)-\(step)",
                    next: step < members.count ? "\(name)-\(step + 1)" : nil
                )
            }
        }
    }
}
