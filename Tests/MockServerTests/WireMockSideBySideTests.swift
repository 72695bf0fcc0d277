import Foundation
import Testing

/// WireMock 2.35.1 itself (the standalone jar inside PyPI's `wiremock` wheel, run by Debian's
/// Java) and `airlock serve --wiremock` serve the same folders: the public corpus
/// (`Tests/Fixtures/WireMockCorpus`) and the built-ins' fixture (`Tests/Fixtures/WireMockBuiltIns`).
/// Each mapping is given alone to both through their admin APIs, a request derived from it goes
/// to both, and their statuses, header fields and bodies are compared
/// (`Tests/Tools/wiremock_client.py side-by-side`, which runs
/// `Benchmarks/wiremock-side-by-side.py`); then the built-ins' probes (requests that must match,
/// or must not) go to both with every mapping loaded. Any difference fails, but the documented
/// ones (MigratingFromWireMock, "What differs"), which are listed as findings: WireMock failing
/// with an exception page where Airlock answers, `CONNECT` opening a tunnel, and the wording of
/// the answer to a request neither server matched. A machine without Java skips WireMock with a
/// finding (CI installs `openjdk-17-jre-headless`).
struct WireMockSideBySideTests {
    @Test func wireMockAndAirlockAnswerTheSameFolderAlike() async throws {
        let airlock = try #require(CLITests.executable, "build the airlock executable first (swift build)")
        let roots = ["Tests/Fixtures/WireMockBuiltIns", "Tests/Fixtures/WireMockCorpus"].map {
            CLITests.packageRoot.appendingPathComponent($0).path
        }
        let run = try await ToolScriptRun.run(
            ["side-by-side", "--other", "\(airlock) serve --wiremock {root} --port 0 --quiet"] + roots,
            script: "wiremock_client.py"
        )
        run.expectSuccess()
        for finding in run.findings { print("WireMock side by side: " + finding) }
        guard run.findings.allSatisfy({ !$0.hasPrefix("Java is not installed") }) else { return }
        let result = try #require(run.resultLine.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        // Every mapping of the folders was listed by WireMock, and most were probed (the rest are
        // skipped with a reason: a matcher no request is derived for, a proxy to the internet).
        let mappings = try #require(result["mappings"] as? Int)
        let probed = try #require(result["probed"] as? Int)
        #expect(mappings >= 340)
        #expect(probed >= 280)
        print("WireMock side by side: \(probed) probed, \(result["same"] ?? "?") the same; refused by Airlock: \(result["refused"] ?? [])")
    }
}
