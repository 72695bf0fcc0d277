extension Airgap {
    /// How Airgap reports a violation. Both modes block it: the request gets ``Airgap/errorCode``,
    /// a socket call fails before any packet leaves.
    public enum Mode: Equatable, Sendable, Codable {
        /// The default. A violation fails the running test (`Issue.record` under Swift Testing,
        /// a failure of the running test under XCTest), and whole-run mode exits non-zero.
        case fail
        /// A violation is reported without failing the test: a known issue under Swift Testing
        /// (`withKnownIssue`), one warning line under XCTest on Linux. The call is still
        /// blocked, so a warn-mode run never reaches a real server either.
        case warn
    }
}
