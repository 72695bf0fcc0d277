import AirlockGRPCCore
import Foundation
import ProcessSupport
import Testing

/// gRPC's length-prefixed messages read from pieces of every size, and their errors.
struct FramingTests {
    static let messages: [[UInt8]] = [[], [0x0A, 0x01, 0x61], Array(repeating: 0x42, count: 300), [0]]

    static var stream: [UInt8] { messages.flatMap { GRPCMessageWriter().frame($0) } }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 64, 10_000])
    func readsWholeMessagesFromPiecesOfAnySize(size: Int) {
        var reader = GRPCMessageReader()
        var received: [[UInt8]] = []
        var index = 0
        let stream = Self.stream
        while index < stream.count {
            reader.append(stream[index..<min(stream.count, index + size)])
            index += size
            loop: while true {
                switch reader.next() {
                case .message(let message): received.append(message)
                case .needMoreBytes: break loop
                case .fail(let error): Issue.record("\(error)"); return
                }
            }
        }
        #expect(received == Self.messages)
        #expect(reader.end() == .finished)
    }

    @Test func aLengthOverTheLimitFailsBeforeItsBytesArrive() {
        var reader = GRPCMessageReader(configuration: .init(maximumMessageLength: 100))
        reader.append([0, 0, 0, 0, 101])
        guard case .fail(let error) = reader.next() else { Issue.record("no failure"); return }
        #expect(error == .tooLong(length: 101, limit: 100))
        #expect(error.status == .resourceExhausted)
        #expect(error.description.contains("101 bytes is over the limit of 100 bytes"))
        // Failed for good.
        reader.append([0, 0, 0, 0, 0])
        #expect(reader.next() == .fail(error))
        var huge = GRPCMessageReader()
        huge.append([0, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(huge.next() == .fail(.tooLong(length: 0xFFFF_FFFF, limit: 4 * 1024 * 1024)))
    }

    @Test func aTruncatedStreamSaysHowMuchArrived() {
        var reader = GRPCMessageReader()
        reader.append([0, 0, 0, 0, 10, 1, 2, 3])
        #expect(reader.next() == .needMoreBytes)
        #expect(reader.end() == .fail(.truncated(expected: 15, received: 8)))
        var prefixOnly = GRPCMessageReader()
        prefixOnly.append([0, 0])
        #expect(prefixOnly.next() == .needMoreBytes)
        guard case .fail(let error) = prefixOnly.end() else { Issue.record("no failure"); return }
        #expect(error.description.contains("2 of its"))
    }

    @Test func compressedMessagesNeedAnEncodingTheReaderHas() {
        let plain = Array("hello gRPC, hello gzip".utf8)
        let compressed = GRPCMessageWriter(encoding: .gzip).frame(plain)
        #expect(compressed[0] == 1)
        var identity = GRPCMessageReader()
        identity.append(compressed)
        #expect(identity.next() == .fail(.compressedWithoutEncoding))
        var snappy = GRPCMessageReader(configuration: .init(encoding: GRPCMessageEncoding("snappy")))
        snappy.append(compressed)
        guard case .fail(let error) = snappy.next() else { Issue.record("no failure"); return }
        #expect(error.status == .unimplemented)
        var gzip = GRPCMessageReader(configuration: .init(encoding: .gzip))
        gzip.append(compressed)
        #expect(gzip.next() == .message(plain))
        // A gzip bomb past the limit, and bytes that are not gzip.
        var limited = GRPCMessageReader(configuration: .init(maximumMessageLength: 1000, encoding: .gzip))
        limited.append(GRPCMessageWriter(encoding: .gzip).frame(Array(repeating: 0, count: 100_000)))
        #expect(limited.next() == .fail(.badCompressedData))
        var junk = GRPCMessageReader(configuration: .init(encoding: .gzip))
        junk.append(GRPCMessageWriter.prefixed([1, 2, 3], compressed: true))
        #expect(junk.next() == .fail(.badCompressedData))
        var badFlag = GRPCMessageReader()
        badFlag.append([2, 0, 0, 0, 0])
        #expect(badFlag.next() == .fail(.badFlag(2)))
    }

    @Test func gzipFramesReadWithTheGzipCommand() throws {
        // The writer's gzip is a real gzip stream: the system's `gzip -d` reads it.
        let plain = Array(String(repeating: "airlock ", count: 100).utf8)
        let framed = GRPCMessageWriter(encoding: .gzip).frame(plain)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("grpc-\(UUID().uuidString).gz")
        try Data(framed.dropFirst(5)).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let gzip = ["/usr/bin/gzip", "/bin/gzip"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let gzip else { return }
        let result = try runAndRead(gzip, ["-dc", file.path])
        #expect(result == plain)
    }

    private func runAndRead(_ executable: String, _ arguments: [String]) throws -> [UInt8] {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("grpc-out-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = nil
        process.standardOutput = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return [UInt8](try Data(contentsOf: output))
    }
}

/// Status codes, `grpc-message` and `grpc-timeout`.
struct StatusTests {
    @Test func theSeventeenCodesByNameAndNumber() {
        #expect(GRPCStatusCode.allCases.count == 17)
        #expect(GRPCStatusCode.allCases.map(\.rawValue) == Array(0...16))
        for code in GRPCStatusCode.allCases {
            #expect(GRPCStatusCode(name: code.name) == code)
            #expect(GRPCStatusCode(grpcStatusValue: String(code.rawValue)) == code)
        }
        #expect(GRPCStatusCode(name: "not_found") == .notFound)
        #expect(GRPCStatusCode(name: "INTERNAL") == .internalError)
        #expect(GRPCStatusCode(name: "NOPE") == nil)
        #expect(GRPCStatusCode(grpcStatusValue: "17") == .unknown)
        #expect(GRPCStatusCode(grpcStatusValue: "x") == .unknown)
    }

    @Test(arguments: [
        ("plain text", "plain text"),
        ("100% sure", "100%25 sure"),
        ("café ✓", "caf%C3%A9 %E2%9C%93"),
        ("line\nbreak\ttab", "line%0Abreak%09tab"),
        ("", ""),
    ])
    func grpcMessagePercentEncoding(message: String, encoded: String) {
        #expect(GRPCStatusMessage.encode(message) == encoded)
        #expect(GRPCStatusMessage.decode(encoded) == message)
    }

    @Test func grpcMessageDecodingNeverFails() {
        #expect(GRPCStatusMessage.decode("50%") == "50%")
        #expect(GRPCStatusMessage.decode("%zz%4") == "%zz%4")
        #expect(GRPCStatusMessage.decode("%FF") == "\u{FFFD}")
        #expect(GRPCStatusMessage.decode("%e2%9c%93") == "✓")
    }

    @Test func grpcTimeout() {
        #expect(GRPCTimeout(headerValue: "100m")?.nanoseconds == 100_000_000)
        #expect(GRPCTimeout(headerValue: "1H")?.nanoseconds == 3_600_000_000_000)
        #expect(GRPCTimeout(headerValue: "99999999n")?.nanoseconds == 99_999_999)
        #expect(GRPCTimeout(headerValue: "5u")?.nanoseconds == 5000)
        #expect(GRPCTimeout(headerValue: "2S")?.nanoseconds == 2_000_000_000)
        #expect(GRPCTimeout(headerValue: "3M")?.nanoseconds == 180_000_000_000)
        for bad in ["", "m", "123456789m", "1x", "-1S", "1.5S", " 1S", "1 S", "１S"] {
            #expect(GRPCTimeout(headerValue: bad) == nil, "\(bad)")
        }
        #expect(GRPCTimeout(nanoseconds: 1_500_000_000).headerValue == "1500000u")
        #expect(GRPCTimeout(nanoseconds: 250).headerValue == "250n")
        #expect(GRPCTimeout(nanoseconds: 3_600_000_000_000 * 1000).headerValue == "3600000S")
    }
}
