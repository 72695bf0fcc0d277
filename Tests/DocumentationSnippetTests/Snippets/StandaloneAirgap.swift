import Airgap
import Testing

// A sample that shows its imports is compiled in a file with exactly those imports, so that it
// compiles as a reader's own file would (CodeBlockTests checks this). Compiled, not run.

// GuardingTests.md, README.md: the trait.
@Suite(.disabled("a documentation sample: compiled, not run"))
struct AirgapTraitSample {
    @Suite(.airgapped(allowedHosts: ["localhost"]))
    struct MyFeatureTests {
        @Test func fetchData() async throws {
            // Any other network access here records an Issue for this test
        }
    }

    @Test(.airgapped(mode: .warn)) func tolerated() async throws { /* known issues only */ }
}
