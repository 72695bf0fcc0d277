import Foundation
import Testing

#if canImport(Glibc)
import ProcessSupport
#endif

/// `Benchmarks/ServerPipeline` (what the server's own handlers cost per request, beside
/// SwiftNIO's bare pipeline), run as a child process: BENCHMARKS.md quotes it.
struct ServerPipelineBenchmarkTests {
    @Test func bothPipelinesAnswerTheSameResponseAndTheTableIsPrinted() throws {
        let airlock = try #require(CLITests.executable, "build the executables first (swift build)")
        let path = URL(fileURLWithPath: airlock).deletingLastPathComponent().appendingPathComponent("ServerPipeline").path
        try #require(FileManager.default.isExecutableFile(atPath: path), "build the ServerPipeline executable first (swift build)")
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["--requests", "200", "--rounds", "1"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // The benchmark stops with the response it got when one side answers other bytes than
        // the anchor's status line, fields and body.
        #expect(process.terminationStatus == 0, "\(errorText)")
        #expect(text.contains("| swift-nio (anchor): configureHTTPServerPipeline + a fixed answer |"))
        #expect(text.contains("| airlock: MockServer's connection pipeline, journal on |"))
        #expect(text.contains("airlock / anchor: "))
    }
}
