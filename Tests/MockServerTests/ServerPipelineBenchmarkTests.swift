import Testing

/// `Benchmarks/ServerPipeline` (what the server's own handlers cost per request, beside
/// SwiftNIO's bare pipeline), run as a child process: BENCHMARKS.md quotes it.
struct ServerPipelineBenchmarkTests {
    @Test func bothPipelinesAnswerTheSameResponseAndTheTableIsPrinted() throws {
        let (status, output, errors) = try LaunchedAirlock.run(["--requests", "200", "--rounds", "1"], executable: "ServerPipeline")
        // The benchmark stops with the response it got when one side answers other bytes than
        // the anchor's status line, fields and body.
        #expect(status == 0, "\(errors)")
        #expect(output.contains("| swift-nio (anchor): configureHTTPServerPipeline + a fixed answer |"))
        #expect(output.contains("| airlock: MockServer's connection pipeline, journal on |"))
        #expect(output.contains("airlock / anchor: "))
    }
}
