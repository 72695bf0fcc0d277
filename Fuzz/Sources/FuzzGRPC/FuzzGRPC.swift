// libFuzzer harness: arbitrary bytes into AirlockGRPCCore's parsers of outside input, by the
// descriptor set of Tests/Fixtures/GRPC (orders.pb). The first byte picks the parser (its low two
// bits) and, for messages, the message type of the set (the rest of its bits):
//   0: the rest as a binary message: a CodecError naming a path, or JSON that encodes again and
//      decodes to the same JSON;
//   1: the rest as JSON for the type: a CodecError or JSONParseError, or a binary that decodes,
//      and whose JSON encodes and decodes to itself;
//   2: the rest as a stream of length-prefixed gRPC messages (its first byte: the piece size and
//      whether gzip is the call's encoding): read in pieces and whole, the same messages and error;
//   3: the rest as a descriptor set.
// A broken property stops the run (`fatalError`), as a crash does, so libFuzzer keeps the input.
//
// Reached through `@_spi(Fuzzing) FuzzedGRPC` (Sources/AirlockGRPCCore/Internal/GRPC+Fuzzing.swift).
import FuzzSupport

@_spi(Fuzzing) import AirlockGRPCCore
import Foundation

/// The fixture's descriptor set, found from this file's place in the repository.
private let harness: FuzzedGRPC = {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Tests/Fixtures/GRPC/orders.pb")
    do {
        return try FuzzedGRPC(descriptorSet: Data(contentsOf: url.standardizedFileURL))
    } catch {
        fatalError("cannot read the descriptor set \(url.path): \(error)")
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGRPC(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = bytes.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    harness.run(input)
    return 0
}
