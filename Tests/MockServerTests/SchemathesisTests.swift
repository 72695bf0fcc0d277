import Foundation
import MockServer
import ProcessSupport
import Testing

/// `airlock serve --openapi` checked by a tool no one here wrote: schemathesis (PyPI), driven by
/// `Tests/Tools/contract_tools.py` (which installs it into `.build/contract-tools` on first use;
/// see `Tests/Tools/README.md`), against a child serving each of the OpenAPI Initiative's example
/// documents.
///
/// - **Positive phase**: requests schemathesis makes to keep the contract (examples, boundary
///   values, random valid data, sequences along the document's links). Each answer must keep the
///   contract — no 5xx, a status the operation lists, its content type, headers and schema — and
///   none may be refused (`positive_data_acceptance`): a refusal is a violation Airlock made up.
/// - **Negative phase**: requests that break the contract (wrong types, values out of range,
///   missing required parts…). Each must be refused with a 4xx (`negative_data_rejection`), and
///   none may get a 5xx.
///
/// A fixed seed and a bounded number of cases per operation make each run the same. Known
/// differences the script checks exactly (its `findings`, listed per document below) do not fail;
/// any other failed check does, with the case and the answer.
struct SchemathesisTests {
    struct Document: Sendable, CustomTestStringConvertible {
        let file: String
        /// The findings the script may report for this document (each checked exactly by it).
        let knownFindings: [String]
        /// Whether schemathesis can make requests that break the contract, which the child
        /// then reports on standard error.
        let hasInvalidRequests: Bool

        var testDescription: String { file }
    }

    static let documents: [Document] = [
        Document(file: "v3.0/petstore.yaml", knownFindings: [], hasInvalidRequests: true),
        Document(file: "v3.0/petstore-expanded.yaml", knownFindings: [], hasInvalidRequests: true),
        // No parameter, body or schema: nothing a request could get wrong but its path.
        Document(file: "v3.0/api-with-examples.yaml", knownFindings: [], hasInvalidRequests: false),
        Document(file: "v3.0/uspto.yaml", knownFindings: ["uspto POST /{dataset}/{version}/records: schemathesis sends a form object without its required `criteria`"], hasInvalidRequests: true),
    ]

    static let examples = Repository.openAPIExamples

    @Test(
        .enabled(
            if: !ThreadSanitizer.isActive,
            "schemathesis drives airlock serve with hundreds of requests from Python: under ThreadSanitizer's slowdown that load starves the suite's socket tests of time; it checks verdicts, not threads, and runs in a plain swift test (as CI does)"
        ),
        arguments: documents
    )
    func schemathesisFindsNoFaultInTheMockOfTheDocument(_ document: Document) async throws {
        let spec = Self.examples.appendingPathComponent(document.file)
        try #require(FileManager.default.fileExists(atPath: spec.path), "the tests expect the shared folder beside the clone: \(spec.path)")
        let errors = Pipe()
        let airlock = try LaunchedAirlock(["serve", "--openapi", spec.path, "--port", "0"], standardError: errors)
        defer { airlock.stopIfRunning() }
        // The child reports each violation on standard error: read as it goes, so that it never
        // waits on a full pipe.
        let violations = LineReader(errors.fileHandleForReading)
        let (banner, base) = try await airlock.banner()
        #expect(banner.hasPrefix("Airlock serving "), "\(banner)")

        let run = try await ToolScriptRun.run(["schemathesis", "--base-url", base, "--spec", spec.path], script: "contract_tools.py")
        run.expectSuccess()
        for finding in run.findings {
            #expect(document.knownFindings.contains { finding.hasPrefix($0) }, "a finding not pinned for \(document.file): \(finding)")
        }
        let phases = try #require(run.result?["phases"] as? [String: [String: Any]], "no phases in \(run.resultLine ?? "nothing")")
        for phase in ["positive", "negative"] {
            let counts = try #require(phases[phase], "no \(phase) phase")
            #expect((counts["cases"] as? Int ?? 0) > 0, "\(phase): schemathesis made no test case")
            #expect(counts["problems"] as? Int == 0, "\(phase): \(counts)")
        }

        airlock.process.terminate()
        _ = await airlock.exit.status()
        var reported = 0
        while let line = await violations.next() {
            if line.hasPrefix("airlock: contract violation: ") { reported += 1 }
        }
        if document.hasInvalidRequests {
            #expect(reported > 0, "airlock serve reported no violation of the negative phase's requests")
        }
    }
}

extension ToolScriptRun {
    /// The closing JSON line as an object.
    var result: [String: Any]? {
        resultLine.flatMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }
}
