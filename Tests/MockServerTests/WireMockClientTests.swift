import Foundation
import MockServer
import Testing

/// WireMock's admin API checked by a client no one here wrote: PyPI's `wiremock` 2.7.0, driven by
/// `Tests/Tools/wiremock_client.py` (which installs it into `.build/wiremock-client` on first use;
/// see `Tests/Tools/README.md`) against `airlock serve --wiremock` as a child process. Every call
/// of the client — mappings created, listed, fetched, updated and deleted; resets; requests
/// counted and found; near misses; scenarios; save; settings — has its result checked by the
/// script against what WireMock answers (the script passes against WireMock standalone too).
struct WireMockClientTests {
    @Test func thePyPIWireMockClientDrivesAirlockServe() async throws {
        let folder = try WireMockFolder(mappings: [:])
        defer { folder.remove() }
        let airlock = try LaunchedAirlock(["serve", "--wiremock", folder.root.path, "--port", "0", "--quiet"])
        defer { airlock.stopIfRunning() }
        let (_, base) = try await airlock.banner()
        let run = try await ToolScriptRun.run(["admin", "--base-url", base, "--root-dir", folder.root.path], script: "wiremock_client.py")
        run.expectSuccess()
        #expect(run.lines.contains { $0.contains("\"checks\"") })
    }
}
