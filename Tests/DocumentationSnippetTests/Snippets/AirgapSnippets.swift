import Airgap
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The Swift samples of Airgap's articles and of the README, verbatim; compiled, not run.

// Airgap.md.
@Suite(.disabled("a documentation sample: compiled, not run"))
struct AirgapLandingPageSample {
    @Suite(.airgapped(allowedHosts: ["localhost"]))
    struct CheckoutTests {
        @Test func placesAnOrder() async throws { /* a real connection here fails the test */ }
    }
}

// GuardingTests.md: XCTest.
final class MyTests: AirgapTestCase {
    override func configure() {           // after the environment, before activate()
        Airgap.allowedHosts = ["localhost"]
    }
}

// GuardingTests.md: manual use and settings.
func manualUseAndSettings() async throws {
    Airgap.allowedHosts = ["localhost", "*.mock-server.local", "127.0.0.0/8", "::1"]
    Airgap.activate()
    defer { Airgap.deactivate() }

    Airgap.allowNetworkAccess()                       // until the next activate()
    try await Airgap.withNetworkAccessAllowed { try await refreshFixtures() }  // sync and async; restores even on throw
    Airgap.withConfiguration(mode: .warn, allowedHosts: ["localhost"]) { runLegacyChecks() }
    Airgap.passthroughProtocols = [MyMockURLProtocol.self]
    Airgap.errorCode = NSURLErrorTimedOut             // default -1009
    Airgap.responseDelay = 2                          // seconds, delivered on a timer
    Airgap.violationReporter = { violation in print(violation.url) }  // every violation, structured
    Airgap.reportPath = "/tmp/airgap-report.txt"; Airgap.writeReport()
    print(Airgap.violationSummary() ?? "")
}

// HowAirgapWorks.md: the URLSession layer in any configuration.
func protectedConfiguration() {
    let session = URLSession(configuration: Airgap.protect(.ephemeral))
    _ = session
}
