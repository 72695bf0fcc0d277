import Foundation

#if canImport(Testing)
import Testing
#endif
#if canImport(XCTest)
import XCTest
#endif

/// What Airgap does with a violation when nobody set a ``Airgap/violationHandler``.
enum DefaultReporting {
    /// Fail mode: an `Issue` for a running Swift Testing test on this task, `XCTFail` for a
    /// running XCTest test, otherwise a line on standard error.
    @Sendable static func handle(_ message: String) {
        #if canImport(Testing)
        if Test.current != nil {
            Issue.record(Comment(rawValue: message))
            return
        }
        #endif
        #if canImport(XCTest)
        if Airgap.state.withLock({ $0.currentXCTestName }) != nil {
            XCTFail(message)
            return
        }
        #endif
        printToStandardError("\(message)")
    }

    /// Warn mode: a known issue for a running Swift Testing test, otherwise one warning line.
    static func warn(_ message: String) {
        #if canImport(Testing)
        if Test.current != nil {
            withKnownIssue("Airgap violation (warning mode)") {
                Issue.record(Comment(rawValue: message))
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
    #endif
}
