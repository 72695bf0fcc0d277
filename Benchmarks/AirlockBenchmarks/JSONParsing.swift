import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import Foundation

/// `--only json`: reading and writing a ~1 MB JSON document (4,000 records of nested objects,
/// strings with escapes and non-ASCII, integers and fractions), median of 15 runs after one to
/// warm up: Airlock's parser and compact writer beside `JSONDecoder` through `JSONValue`'s
/// `Codable` conformance (how documents were read before the parser) and Foundation's
/// `JSONSerialization` and `JSONEncoder`.
func printJSONBenchmark() throws {
    var text = #"{"data": ["#
    for index in 0..<4_000 {
        if index > 0 { text += "," }
        text += #"""
            {"id": \#(index), "name": "User \#(index) é", "email": "user\#(index)@example.com", "active": \#(index % 2 == 0), "score": \#(Double(index) * 1.37),
             "tags": ["alpha", "beta", "gamma\n"], "address": {"street": "\#(index) Main St", "city": "Springfield", "geo": {"lat": 40.\#(index), "lng": -73.\#(index)}},
             "note": null}
            """#
    }
    text += #"], "meta": {"total": 4000}}"#
    let data = Data(text.utf8)
    let value = try JSONValue.parse(data)
    let sorted = JSONEncoder()
    sorted.outputFormatting = [.sortedKeys]
    let parts: [(String, () throws -> Void)] = [
        ("JSONValue.parse (members in order)", { _ = try JSONValue.parse(data) }),
        ("JSONDecoder into JSONValue (Codable; the parser before)", { _ = try JSONDecoder().decode(JSONValue.self, from: data) }),
        ("JSONSerialization.jsonObject", { _ = try JSONSerialization.jsonObject(with: data) }),
        ("JSONValue.compactData (in order)", { _ = try value.compactData() }),
        ("JSONEncoder, sorted keys", { _ = try sorted.encode(value) }),
    ]
    print("JSON: a document of \(data.count.formatted()) bytes, median of 15 runs")
    for (name, run) in parts {
        try run()
        var times: [Double] = []
        for _ in 0..<15 {
            let start = ContinuousClock.now
            try run()
            times.append(nanoseconds(ContinuousClock.now - start) / 1e6)
        }
        let median = times.sorted()[times.count / 2]
        print("  \(pad(name, 56)) \(padLeft(String(format: "%.1f ms", median), 9))  \(padLeft(String(format: "%.0f MB/s", Double(data.count) / 1e6 / (median / 1e3)), 9))")
    }
}
