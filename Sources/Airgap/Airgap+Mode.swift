extension Airgap {
    /// How Airgap reports a violation, and whether the socket layer lets the call through.
    public enum Mode: Equatable, Sendable, Codable {
        /// The default. A violation fails the running test (`Issue.record` under Swift Testing,
        /// `XCTFail` under XCTest) and the socket layer makes the call fail.
        case fail
        /// A violation is reported without failing the test: a known issue under Swift Testing
        /// (`withKnownIssue`), one warning line under XCTest on Linux. The socket layer lets the
        /// call proceed. The URLSession layer still answers with ``Airgap/errorCode``.
        case warn
    }
}
