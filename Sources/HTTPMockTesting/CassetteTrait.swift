#if canImport(Testing)
import Foundation
import HTTPMock
import Testing

/// Gives each test a cassette of its own: a HAR file in `__Cassettes__` beside the test file,
/// opened before the test runs (in the mode `AIRLOCK_RECORD` and `CI` allow) and saved when it
/// ends. Every request the test's tasks make through `URLSession.shared` is replayed from it (and
/// recorded into it while it records), with nothing injected; the cassette's mock is
/// `HTTPMock.current`.
///
/// ```swift
/// @Test(.cassette) func listsUsers() async throws {
///     let users = try await UsersClient().list()   // calls URLSession.shared
///     #expect(users.count == 3)
/// }
/// ```
///
/// Code that takes a session gets one from a mock bound to the same cassette,
/// `HTTPMock(cassette: .current())`; `Cassette.current()` also binds a `MockServer`.
///
/// Tests with cassettes run in parallel: each has its own cassette and mock, found from the
/// test's task, and nothing is global. On a suite, every test in it gets its own cassette.
///
/// When the test ends, each replay miss (`Cassette.misses`: a request the cassette could not
/// answer while it did not record) is recorded as an `Issue` of the test, naming the request, the
/// nearest recorded entries and how to record it — also when the code under test swallowed the
/// error.
public struct CassetteTrait: TestTrait, SuiteTrait, TestScoping {
    /// The file name without `.har`; `nil` names it after the test.
    public var name: String?
    /// The mode the test asks for (`AIRLOCK_RECORD` and `CI` may override it).
    public var mode: Cassette.RecordMode
    /// How requests match recorded entries.
    public var matching: Cassette.Matching
    /// What is hidden before anything reaches the file.
    public var redaction: Redaction
    /// How fast recorded streams replay: as recorded (the default), scaled, or at once.
    public var pace: StreamPace = .asRecorded
    /// Edits each exchange before redaction and the file see it, or leaves it out (`nil`).
    public var beforeRecord: (@Sendable (RecordedRequest) -> RecordedRequest?)? = nil
    /// How old the cassette may grow before it is recorded again (`nil`: the file's own
    /// `_maxAge`, if any). On CI an older cassette fails the test, saying how old it is; its age
    /// counts from its oldest entry, or from `_verifiedAt` when `airlock cassette verify --update`
    /// confirmed every entry later.
    public var maxAge: MaxAge? = nil

    /// Applies to every test of a suite.
    public var isRecursive: Bool { true }

    /// Opens the test's cassette, runs the test with it as `Cassette.current()`, records an
    /// `Issue` per replay miss, and saves it — also when the test throws, so that what was
    /// recorded is kept.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        guard !test.isSuite else { return try await function() }
        let testName = Cassette.fileName(forTest: test.name)
        let url = Cassette.defaultURL(forTest: name ?? testName, in: test.sourceLocation.filePath)
        let cassette = try Cassette(
            contentsOf: url,
            mode: mode,
            matching: matching,
            redaction: redaction,
            recordCommand: "AIRLOCK_RECORD=newEpisodes swift test --filter \(testName)",
            environment: Cassette.scopedEnvironment ?? ProcessInfo.processInfo.environment,
            pace: pace,
            maxAge: maxAge,
            beforeRecord: beforeRecord
        )
        var failure: (any Error)?
        do {
            // The cassette's own mock answers URLSession.shared for the test's tasks; a mock the
            // test makes with `HTTPMock(cassette: .current())` answers its own session.
            try await HTTPMock(cassette: cassette).intercepting {
                try await Cassette.$scoped.withValue(cassette) { try await function() }
            }
        } catch {
            failure = error
        }
        // Still inside the test's scope: the issues are the test's.
        for report in cassette.missReports {
            Issue.record(Comment(rawValue: report), sourceLocation: test.sourceLocation)
        }
        try cassette.save()
        if let failure { throw failure }
    }
}

extension Trait where Self == CassetteTrait {
    /// A cassette named after the test, recorded once and replayed after.
    public static var cassette: Self {
        CassetteTrait(name: nil, mode: .once, matching: Cassette.Matching(), redaction: .standard)
    }

    /// A cassette with a name, mode, matching rules or redaction of your choosing.
    ///
    /// ```swift
    /// @Test(.cassette("signup", matching: .init(ignoredJSONKeys: ["timestamp"])))
    /// ```
    ///
    /// - Parameters:
    ///   - name: The file name without `.har`; `nil` names it after the test.
    ///   - mode: When to record; `AIRLOCK_RECORD` and `CI` may override it. Defaults to `.once`.
    ///   - matching: How requests match recorded entries.
    ///   - redaction: What to hide before anything reaches the file.
    ///   - pace: How fast recorded streams replay, such as `.instant` for a fast test of a
    ///     stream recorded at its real pace. Defaults to `.asRecorded`.
    ///   - maxAge: How old the cassette may grow before it is recorded again (`nil`: the file's
    ///     own `_maxAge`, if any); on CI an older one fails the test, saying how old it is.
    ///   - beforeRecord: Edits each exchange before redaction and the file see it, or leaves it
    ///     out (`nil`), as VCR's `before_record` does.
    public static func cassette(
        _ name: String? = nil,
        mode: Cassette.RecordMode = .once,
        matching: Cassette.Matching = Cassette.Matching(),
        redaction: Redaction = .standard,
        pace: StreamPace = .asRecorded,
        maxAge: MaxAge? = nil,
        beforeRecord: (@Sendable (RecordedRequest) -> RecordedRequest?)? = nil
    ) -> Self {
        CassetteTrait(name: name, mode: mode, matching: matching, redaction: redaction, pace: pace, beforeRecord: beforeRecord, maxAge: maxAge)
    }
}
#endif

#if canImport(XCTest)
import XCTest

extension XCTestCase {
    /// Opens this test's cassette — `__Cassettes__/<TestFile>/<testName>.har` beside the test
    /// file — and saves it when the test ends (a failed save fails the test). Each replay miss
    /// (`Cassette.misses`) fails the test then too, with `XCTFail` at the line that called
    /// `cassette()`.
    ///
    /// ```swift
    /// func testListsUsers() async throws {
    ///     let mock = HTTPMock(cassette: try cassette())
    ///     …
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: The file name without `.har`; `nil` names it after the test.
    ///   - mode: When to record; `AIRLOCK_RECORD` and `CI` may override it. Defaults to `.once`.
    ///   - matching: How requests match recorded entries.
    ///   - redaction: What to hide before anything reaches the file.
    ///   - pace: How fast recorded streams replay. Defaults to `.asRecorded`.
    ///   - maxAge: How old the cassette may grow before it is recorded again (`nil`: the file's
    ///     own `_maxAge`, if any); on CI an older one throws, saying how old it is.
    ///   - beforeRecord: Edits each exchange before redaction and the file see it, or leaves it
    ///     out (`nil`).
    ///   - filePath: The test file; its folder holds `__Cassettes__`.
    ///   - line: Where replay misses are reported.
    /// - Returns: The cassette.
    /// - Throws: `CassetteError` when the file is not a HAR file, `AIRLOCK_RECORD` names no mode, or
    ///   the cassette is older than its maximum age where it may not record (`CI`).
    public func cassette(
        _ name: String? = nil,
        mode: Cassette.RecordMode = .once,
        matching: Cassette.Matching = Cassette.Matching(),
        redaction: Redaction = .standard,
        pace: StreamPace = .asRecorded,
        maxAge: MaxAge? = nil,
        beforeRecord: (@Sendable (RecordedRequest) -> RecordedRequest?)? = nil,
        filePath: StaticString = #filePath,
        line: UInt = #line
    ) throws -> Cassette {
        let testName = Cassette.fileName(forTest: self.name)
        let cassette = try Cassette(
            contentsOf: Cassette.defaultURL(forTest: name ?? testName, in: "\(filePath)"),
            mode: mode,
            matching: matching,
            redaction: redaction,
            recordCommand: "AIRLOCK_RECORD=newEpisodes swift test --filter \(testName)",
            environment: Cassette.scopedEnvironment ?? ProcessInfo.processInfo.environment,
            pace: pace,
            maxAge: maxAge,
            beforeRecord: beforeRecord
        )
        addTeardownBlock {
            for report in cassette.missReports {
                XCTFail(report, file: filePath, line: line)
            }
            do {
                try cassette.save()
            } catch {
                XCTFail("\(error)", file: filePath)
            }
        }
        return cassette
    }
}
#endif
