import AirlockBase
import AirlockCore
import AirlockStubFiles
import Foundation

extension Journaling {
    /// The recorded requests as a HAR 1.2 document, credentials hidden by `redaction`: open it
    /// in browser dev tools or any HAR viewer.
    ///
    /// ```swift
    /// try mock.exportHAR().write(to: URL(fileURLWithPath: "failing-test.har"))
    /// ```
    public func exportHAR() -> Data {
        HTTPArchive(entries: requests).data(redaction: redaction)
    }
}
