import Foundation
import HTTPMock
import Testing

/// A cassette that cannot be opened or saved, and WireMock mappings that cannot be written,
/// throw a `CassetteError` whose code says why.
struct CassetteErrorTests {
    /// A folder of the test's own, removed after `body`.
    private func withFolder(_ body: (URL) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-cassette-errors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(folder)
    }

    @Test(arguments: [
        ("{", StubFileError.Code.invalidJSON),
        ("{}", .missingField),
        (#"{"log": {"version": "1.2", "creator": {"name": "hand", "version": "1"}, "entries": {}}}"#, .wrongType),
    ])
    func aFileThatIsNotHARIsInvalidFileWithTheFilesOwnError(_ contents: String, _ fileCode: StubFileError.Code) throws {
        try withFolder { folder in
            let file = folder.appendingPathComponent("users.har")
            try Data(contents.utf8).write(to: file)
            let error = #expect(throws: CassetteError.self) { try Cassette(contentsOf: file, mode: .none, environment: [:]) }
            #expect(error?.code == .invalidFile)
            #expect(error?.file == file.path)
            #expect(error?.fileError?.code == fileCode)
            #expect(error?.description.hasPrefix("Airlock cassette \(file.path): \(file.path)") == true, "\(error.map { "\($0)" } ?? "no error")")
            #expect(error?.description.hasSuffix("Fix the file, or delete it and record it again (AIRLOCK_RECORD=newEpisodes swift test).") == true)
        }
    }

    @Test func anUnknownRecordModeIsInvalidRecordMode() {
        let url = URL(fileURLWithPath: "/nonexistent/users.har")
        let error = #expect(throws: CassetteError.self) { try Cassette(contentsOf: url, environment: ["AIRLOCK_RECORD": "sometimes"]) }
        #expect(error?.code == .invalidRecordMode)
        #expect(error?.file == nil)
        #expect(error?.fileError == nil)
        #expect(error?.description.hasPrefix(#"Airlock cassette: AIRLOCK_RECORD is "sometimes", which is not a record mode."#) == true)
    }

    @Test func currentOutsideACassetteTraitIsNoCurrentCassette() {
        let error = #expect(throws: CassetteError.self) { try Cassette.current() }
        #expect(error?.code == .noCurrentCassette)
    }

    @Test func aCassetteThatCannotBeWrittenIsWriteFailed() throws {
        try withFolder { folder in
            let blocker = folder.appendingPathComponent("a-file")
            try Data("x".utf8).write(to: blocker)
            let cassette = try Cassette(contentsOf: blocker.appendingPathComponent("users.har"), mode: .all, environment: [:])
            let error = #expect(throws: CassetteError.self) { try cassette.save() }
            #expect(error?.code == .writeFailed)
            #expect(error?.description.contains("cannot be written") == true)
        }
    }

    @Test func wireMockMappingsNeedAnEmptyWritableFolder() throws {
        try withFolder { folder in
            let snapshot = WireMockSnapshot(HTTPArchive(entries: []))
            let file = folder.appendingPathComponent("a-file")
            try Data("x".utf8).write(to: file)
            let notAFolder = #expect(throws: CassetteError.self) { try snapshot.write(to: file) }
            #expect(notAFolder?.code == .notAFolder)
            let notEmpty = #expect(throws: CassetteError.self) { try snapshot.write(to: folder) }
            #expect(notEmpty?.code == .folderNotEmpty)
            let underAFile = #expect(throws: CassetteError.self) { try snapshot.write(to: file.appendingPathComponent("mappings")) }
            #expect(underAFile?.code == .writeFailed)
            try snapshot.write(to: folder.appendingPathComponent("new"))
        }
    }

    @Test func codesCompareAndNameThemselves() {
        #expect(CassetteError.Code.invalidFile == .invalidFile)
        #expect(CassetteError.Code.invalidFile != .writeFailed)
        #expect(CassetteError.Code.folderNotEmpty.description == "folderNotEmpty")
        let error = CassetteError(.writeFailed, file: "users.har", problem: "cannot be written", fix: "Check that the folder is writable.")
        #expect(error.description == "Airlock cassette users.har: cannot be written. Check that the folder is writable.")
        #expect(error == CassetteError(.writeFailed, file: "users.har", problem: "cannot be written", fix: "Check that the folder is writable."))
    }
}
