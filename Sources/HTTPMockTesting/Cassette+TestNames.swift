import AirlockCore
import Foundation

/// Where a test's cassette lives, from the test's name as Swift Testing and XCTest give it.
extension Cassette {
    /// `Folder/__Cassettes__/UsersTests/listsUsers.har` for a test `listsUsers` in
    /// `Folder/UsersTests.swift`: one file per test, beside the test file, as
    /// swift-snapshot-testing keeps `__Snapshots__`.
    /// - Parameters:
    ///   - name: The test's name (`listsUsers()` and `-[UsersTests testList]` become
    ///     `listsUsers` and `testList`).
    ///   - testFile: The test file's path (`#filePath`).
    /// - Returns: The cassette's URL.
    public static func defaultURL(forTest name: String, in testFile: String) -> URL {
        let file = URL(fileURLWithPath: testFile)
        return file.deletingLastPathComponent()
            .appendingPathComponent("__Cassettes__")
            .appendingPathComponent(file.deletingPathExtension().lastPathComponent)
            .appendingPathComponent(fileName(forTest: name) + ".har")
    }

    /// A test name as a file name: the function name without its argument list, with characters
    /// other than letters, digits, `-` and `_` replaced by `_`.
    static func fileName(forTest name: String) -> String {
        var base = Substring(name)
        if base.hasPrefix("-["), base.hasSuffix("]"), let space = base.lastIndex(of: " ") {
            // Objective-C style, as XCTest names tests on Apple platforms: -[Suite testName].
            base = base[base.index(after: space)..<base.index(before: base.endIndex)]
        } else if let dot = base.lastIndex(of: "."), !base.contains("(") {
            // Suite.testName, as XCTest names tests on Linux.
            base = base[base.index(after: dot)...]
        }
        if let parenthesis = base.firstIndex(of: "(") {
            base = base[..<parenthesis]
        }
        let cleaned = String(base.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        return cleaned.isEmpty ? "cassette" : cleaned
    }
}
