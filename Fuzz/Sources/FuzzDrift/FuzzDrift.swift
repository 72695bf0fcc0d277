// libFuzzer harness: the drift check of `airlock cassette verify` (issue 40).
//
// The input is a JSON path (the first line, as `--ignore` and `--compare-values` take it), then a
// recorded body and a live one separated by a line holding only `----`:
//
//     $.items[*].price
//     {"items": [{"price": 1}]}
//     ----
//     {"items": [{"price": "1"}]}
//
// Never crash, never hang. The path either is refused with a message naming it, or parses and
// the bodies are compared with it ignored and with it compared, as JSON and as server-sent
// events; a body compared with itself never drifts. The whole input is also read as a HAR file:
// one that loads is spliced with each of its entries replaced by itself (as `--update` writes),
// and what that writes must load again with as many entries. The whole input is also scanned
// for placeholders (`<NAME>`, `%3CNAME%3E`) as a request's URL and text: with every variable
// set, none is left and only `[REDACTED]` is a problem; with none set, each one found is a
// problem naming its variable, and the placeholder is never what would be sent.
//
// Reached through `@_spi(Fuzzing) FuzzedDrift` (Sources/AirlockCassettes/Internal/Drift+Fuzzing.swift).
import FuzzSupport

@_spi(Fuzzing) import AirlockCassettes
import Foundation
import HTTPMock

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDrift(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let input = String(decoding: data, as: UTF8.self)
    let (rule, rest) = input.firstIndex(of: "\n").map { (String(input[..<$0]), String(input[input.index(after: $0)...])) } ?? (input, "")
    let halves = rest.components(separatedBy: "\n----\n")
    let recorded = Data(halves[0].utf8)
    let live = Data((halves.count > 1 ? halves[1] : halves[0]).utf8)

    let (_, ruleError) = FuzzedDrift.compare(rule: rule, recorded: recorded, live: live)
    if let ruleError {
        guard ruleError.contains("is not a JSON path") else { fatalError("a rule error without its message: \(ruleError)") }
        return 0
    }
    let same = FuzzedDrift.compare(rule: rule, recorded: recorded, live: recorded).drifts
    guard same.isEmpty else { fatalError("a body drifted from itself: \(same)") }

    for isURL in [false, true] {
        let scan = FuzzedDrift.fillPlaceholders(in: input, isURL: isURL, value: "v")
        for spelling in scan.found {
            guard input.contains(spelling) else { fatalError("found \(spelling), which the input does not hold") }
            guard !scan.filled.contains(spelling) else { fatalError("\(spelling) left in the filled text: \(scan.filled)") }
        }
        guard scan.problems.allSatisfy({ $0.contains("[REDACTED]") }) else { fatalError("a problem with every variable set: \(scan.problems)") }
        guard scan.found.isEmpty || scan.unsetProblems.contains(where: { $0.contains("that fills it is not set") }) else {
            fatalError("placeholders \(scan.found) with no variable set, but no problem named one")
        }
    }

    let (spliced, entries) = FuzzedDrift.spliceEveryEntry(of: data)
    if let spliced {
        guard let again = try? HTTPArchive(data: spliced, source: "spliced.har"), again.entries.count == entries else {
            fatalError("a spliced HAR file does not load with its \(entries) entries:\n\(String(decoding: spliced, as: UTF8.self))")
        }
    }
    return 0
}
