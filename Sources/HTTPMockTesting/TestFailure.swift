#if canImport(Testing)
import Testing
#endif
#if canImport(XCTest)
import XCTest
#endif

/// Reports a failure to whichever test framework is running the current test: an `Issue` under
/// Swift Testing, `XCTFail` under XCTest, at the caller's file and line.
enum TestFailure {
    static func record(_ message: String, fileID: String, filePath: StaticString, line: UInt, column: UInt) {
        #if canImport(Testing)
        if Test.current != nil {
            Issue.record(
                Comment(rawValue: message),
                sourceLocation: SourceLocation(
                    fileID: fileID,
                    filePath: "\(filePath)",
                    line: Int(line),
                    column: Int(column)
                )
            )
            return
        }
        #endif
        #if canImport(XCTest)
        XCTFail(message, file: filePath, line: line)
        #else
        print("error: \(filePath):\(line): \(message)")
        #endif
    }
}
