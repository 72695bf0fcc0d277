import Foundation

/// Where the core writes warnings and rejected stubs: standard error.
package enum Diagnostics {
    package static func print(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
