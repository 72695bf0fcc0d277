import Foundation

#if canImport(Testing)
import Testing
#endif
#if canImport(XCTest)
import XCTest
#endif

/// What Airgap does with a violation when nobody set a ``Airgap/violationHandler``.
enum DefaultReporting {
    /// The call stack of the violation being reported (set around the handler), from which the
    /// user's frame that made the call is taken.
    @TaskLocal static var stack: ViolationStack?
    /// The XCTest test that ran when the violation happened (set around the handler, which may
    /// run after that test moved on to its tear-down).
    @TaskLocal static var xctest: XCTestCaseReference?

    /// Fail mode: an `Issue` for a running Swift Testing test on this task, a failure of the
    /// running XCTest test, otherwise a line on standard error. Issues and failures point at the
    /// user's frame that made the call when it is known, else at the test.
    @Sendable static func handle(_ message: String) {
        #if canImport(Testing)
        if let test = Test.current {
            // On the test's own task, before the blocked call returns: at the user's frame when
            // this stack was symbolicated before (symbolicating now would make the call wait),
            // else at the test.
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation(stack?.cachedUserFrame) ?? test.sourceLocation)
            return
        }
        #endif
        #if canImport(XCTest)
        let (name, current) = Airgap.state.withLock { ($0.currentXCTestName, $0.currentXCTestCase) }
        let reference = xctest ?? current
        if name != nil || xctest?.testCase != nil {
            // XCTest stops a run before its observers hear of the end; a failure recorded on a
            // stopped run is a fatal error. (Violations are delivered before the blocked call
            // returns, so only a late one from another thread can get here.)
            if let testCase = reference?.testCase, testCase.testRun?.stopDate == nil {
                // Symbolicates the stack (once per distinct stack) to point at the user's line.
                let frame = stack?.userFrame
                testCase.recordFailure(
                    withDescription: message,
                    inFile: frame?.path ?? "<\(testCase.name)>",
                    atLine: frame?.line ?? 0,
                    expected: true
                )
            } else if reference?.testCase == nil {
                XCTFail(message)
            } else {
                printToStandardError("\(message)")
            }
            return
        }
        #endif
        printToStandardError("\(message)")
    }

    /// Warn mode: a known issue for a running Swift Testing test, otherwise one warning line.
    static func warn(_ message: String) {
        #if canImport(Testing)
        if let test = Test.current {
            let where_ = sourceLocation(stack?.cachedUserFrame) ?? test.sourceLocation
            withKnownIssue("Airgap violation (warning mode)") {
                Issue.record(Comment(rawValue: message), sourceLocation: where_)
            }
            return
        }
        #endif
        printWarning(message)
    }

    /// One line per violation: the first line of the message.
    static func printWarning(_ message: String) {
        let firstLine = message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? message
        printToStandardError("warning: \(firstLine) (warn mode)")
    }

    /// Whether a Swift Testing test runs on the current task.
    static var isInSwiftTest: Bool {
        #if canImport(Testing)
        return Test.current != nil
        #else
        return false
        #endif
    }

    #if canImport(Testing)
    /// `Suite/test()` for the Swift Testing test running on this task, if any.
    static func currentSwiftTestName() -> String? {
        guard let test = Test.current else { return nil }
        return testName(for: test)
    }

    static func testName(for test: Test) -> String {
        let components = test.id.nameComponents
        return components.isEmpty ? test.name : components.joined(separator: "/")
    }

    /// A Swift Testing source location for a user frame (`Module/File.swift`, the module being
    /// the folder that holds the file, as in a SwiftPM package).
    static func sourceLocation(_ frame: UserFrame?) -> SourceLocation? {
        guard let frame else { return nil }
        let url = URL(fileURLWithPath: frame.path)
        let module = url.deletingLastPathComponent().lastPathComponent
        return SourceLocation(fileID: "\(module)/\(url.lastPathComponent)", filePath: frame.path, line: frame.line, column: 1)
    }
    #endif
}
