// libFuzzer harness: arbitrary bytes into Airlock's own JSON parser, and a round trip of what
// parses.
//
// Every input either throws the parser's error (`JSONParseError`: its message can be built and
// its position is inside the input) or parses. What parses must
//   - read the same with `parseKeepingLongIntegers` as with `parse`;
//   - write compact, and that text must parse again to an equal value and write again to the
//     very same bytes (the writer's output is a fixed point);
//   - write pretty-printed, and that text must parse again to an equal value;
//   - quote each of its strings so that the quoted text parses back to the same string.
// A broken property stops the run (`fatalError`), as a crash does, so libFuzzer keeps the input.
//
// Reached through `@_spi(Fuzzing) FuzzedJSON` (Sources/AirlockCore/Internal/JSONValue+Fuzzing.swift).
import FuzzSupport

@_spi(Fuzzing) import AirlockCore
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let parsed: FuzzedJSON
    do {
        parsed = try FuzzedJSON(parsing: data)
    } catch let error as FuzzedJSON.ParseFailure {
        // Rejected: the message is built, and names a place in the input.
        guard !error.description.isEmpty, (0...data.count).contains(error.offset), error.line >= 1, error.column >= 1 else {
            fatalError("a parse error outside the input or without a message: offset \(error.offset), line \(error.line), column \(error.column): \(error.description)")
        }
        return 0
    } catch {
        fatalError("the JSON parser threw \(type(of: error)), not its JSONParseError: \(error)")
    }

    let compact = written(parsed, "compact") { try $0.compactData() }
    let again = reparsed(compact, of: parsed, "compact")
    let compactAgain = written(again, "compact (second time)") { try $0.compactData() }
    guard compactAgain == compact else {
        fatalError("writing compact is not a fixed point:\n\(text(compact))\n\(text(compactAgain))")
    }
    _ = reparsed(written(parsed, "pretty") { try $0.prettyData() }, of: parsed, "pretty")

    for (string, quoted) in parsed.quotedStrings.prefix(64) {
        guard let back = try? FuzzedJSON(parsing: Data(quoted.utf8)), back.stringValue == string else {
            fatalError("JSONValue.quoted(\(string.debugDescription)) = \(quoted), which does not read back as that string")
        }
    }
    return 0
}

/// What `write` gives for a parsed value; a value that parsed must be writable.
private func written(_ value: FuzzedJSON, _ form: String, _ write: (FuzzedJSON) throws -> Data) -> Data {
    do {
        return try write(value)
    } catch {
        fatalError("a parsed value does not write \(form): \(error)")
    }
}

/// `output` parsed again; it must give the value it was written from.
private func reparsed(_ output: Data, of value: FuzzedJSON, _ form: String) -> FuzzedJSON {
    let again: FuzzedJSON
    do {
        again = try FuzzedJSON(parsing: output)
    } catch {
        fatalError("the \(form) writing does not parse again (\(error)):\n\(text(output))")
    }
    guard again == value else {
        fatalError("the \(form) writing parses to another value:\n\(text(output))")
    }
    return again
}

private func text(_ data: Data) -> String {
    String(decoding: data.prefix(2_000), as: UTF8.self)
}
