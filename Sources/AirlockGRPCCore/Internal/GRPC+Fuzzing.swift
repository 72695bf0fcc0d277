import AirlockBase
import Foundation

/// The libFuzzer harness's way in (Fuzz/Sources/FuzzGRPC): every parser of outside input this
/// module has, fed arbitrary bytes, with the properties each must keep. A broken property stops
/// the process (`fatalError`), as a crash does, so that libFuzzer keeps the input. Not API.
@_spi(Fuzzing)
public struct FuzzedGRPC: Sendable {
    private let codec: MessageCodec
    private let types: [String]

    /// A harness over a descriptor set (the test fixture's).
    public init(descriptorSet: Data) throws {
        codec = MessageCodec(try DescriptorSet(serializedBytes: descriptorSet, source: "fuzzing"))
        types = codec.descriptors.messages.keys.sorted()
    }

    /// One input: its first byte picks what reads the rest (and, for messages, the type).
    public func run(_ input: [UInt8]) {
        guard let first = input.first else { return }
        let rest = Array(input.dropFirst())
        let type = types[Int(first >> 2) % types.count]
        switch first & 3 {
        case 0: binary(rest, as: type)
        case 1: json(rest, as: type)
        case 2: framing(rest)
        default: _ = try? DescriptorSet(serializedBytes: Data(rest), source: "fuzzed")
        }
    }

    /// Binary → JSON; what decodes must encode again, and decode to the same JSON.
    private func binary(_ bytes: [UInt8], as type: String) {
        let decoded: JSONValue
        do {
            decoded = try codec.decode(bytes, as: type).json
        } catch let error as CodecError {
            guard !error.problem.isEmpty, error.path.hasPrefix(rootName(type)) else { fatalError("an error without a message or path: \(error)") }
            return
        } catch {
            fatalError("decoding threw \(Swift.type(of: error)), not a CodecError: \(error)")
        }
        roundTrip(decoded, as: type, from: "binary")
    }

    /// JSON → binary; what encodes must decode, and that JSON must encode and decode to itself.
    private func json(_ bytes: [UInt8], as type: String) {
        let encoded: [UInt8]
        do {
            encoded = try codec.encode(json: Data(bytes), as: type)
        } catch is CodecError {
            return
        } catch is JSONParseError {
            return
        } catch {
            fatalError("encoding threw \(Swift.type(of: error)), neither a CodecError nor a JSONParseError: \(error)")
        }
        do {
            let decoded = try codec.decode(encoded, as: type).json
            roundTrip(decoded, as: type, from: "JSON")
        } catch {
            fatalError("the codec's own binary does not decode (\(type)): \(error)\ninput: \(String(decoding: bytes.prefix(2000), as: UTF8.self))")
        }
    }

    private func roundTrip(_ decoded: JSONValue, as type: String, from origin: String) {
        do {
            let again = try codec.decode(try codec.encode(decoded, as: type), as: type).json
            guard again == decoded else {
                fatalError("decoded JSON (from \(origin)) changes through encode and decode (\(type)):\n\(text(decoded))\n\(text(again))")
            }
            _ = try decoded.compactData()
        } catch {
            fatalError("decoded JSON (from \(origin)) does not encode again (\(type)): \(error)\n\(text(decoded))")
        }
    }

    /// The framing reader: the bytes in pieces of one size and all at once read the same.
    private func framing(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let stream = Array(bytes.dropFirst())
        let size = Int(first & 0x0F) + 1
        let configuration = GRPCMessageReader.Configuration(maximumMessageLength: 4096, encoding: first & 0x10 == 0 ? .gzip : .identity)
        let whole = read([stream], configuration)
        let pieces = read(stride(from: 0, to: stream.count, by: size).map { Array(stream[$0..<min(stream.count, $0 + size)]) }, configuration)
        guard whole == pieces else { fatalError("the reader reads pieces of \(size) bytes otherwise than the whole stream") }
        // What was read, written again, reads the same.
        if case .finished = whole.end {
            let rewritten = whole.messages.flatMap { GRPCMessageWriter().frame($0) }
            guard read([rewritten], configuration).messages == whole.messages else { fatalError("rewritten messages read otherwise") }
        }
    }

    private struct Reading: Equatable {
        var messages: [[UInt8]] = []
        var failure: GRPCFramingError?
        var end: GRPCMessageReader.EndAction = .finished
    }

    private func read(_ pieces: [[UInt8]], _ configuration: GRPCMessageReader.Configuration) -> Reading {
        var reader = GRPCMessageReader(configuration: configuration)
        var reading = Reading()
        for piece in pieces {
            reader.append(piece)
            loop: while true {
                switch reader.next() {
                case .message(let message):
                    guard message.count <= configuration.maximumMessageLength else { fatalError("a message over the limit was delivered") }
                    reading.messages.append(message)
                case .needMoreBytes: break loop
                case .fail(let error):
                    reading.failure = error
                    break loop
                }
            }
        }
        reading.end = reader.end()
        return reading
    }

    private func rootName(_ type: String) -> String {
        let short = type.split(separator: ".").last.map(String.init) ?? type
        return short.prefix(1).lowercased() + short.dropFirst()
    }

    private func text(_ value: JSONValue) -> String {
        String(decoding: ((try? value.compactData()) ?? Data()).prefix(2000), as: UTF8.self)
    }
}
