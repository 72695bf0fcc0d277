import AirlockCore
import Foundation
import HTTPTypes

/// The drift check's parsers of outside input — the JSON paths of `--ignore` and
/// `--compare-values`, the bodies compared (JSON, server-sent events), and the splice that
/// rewrites entries of a HAR file — for the fuzz harness in `Fuzz/` (`FuzzDrift`). Not API: the
/// `Fuzzing` SPI may change at any time.
@_spi(Fuzzing)
public enum FuzzedDrift {
    /// Parses `rule` as an ignored and as a compared path and compares `recorded` with `live` as
    /// JSON bodies and as streams of events under each. Returns the drifts' descriptions, or
    /// the parse error's message when the rule does not parse. Not API.
    public static func compare(rule: String, recorded: Data, live: Data) -> (drifts: [String], ruleError: String?) {
        let parsed: FieldRule
        do {
            parsed = try FieldRule(rule)
        } catch {
            return ([], error.description)
        }
        var drifts: [String] = []
        for (ignored, compared) in [([parsed], [FieldRule]()), ([], [parsed])] {
            let comparison = ExchangeComparison(ignored: ignored, compared: compared, ignoredHeaders: [])
            for type in ["application/json", "text/event-stream"] {
                var fields = HTTPFields()
                fields[.contentType] = type
                let old = RecordedResponse(status: 200, headerFields: fields, body: recorded)
                let new = RecordedResponse(status: 200, headerFields: fields, body: live)
                drifts += comparison.drifts(recorded: old, live: new).map(\.description)
            }
        }
        return (drifts, nil)
    }

    /// Scans `text` for placeholders (`<NAME>`, in a URL also `%3CNAME%3E`) as a verification
    /// does, and fills them twice: from an environment giving every variable a value, and from an
    /// empty one. Returns the spellings found, the text filled with every value, and each
    /// filling's problems. Not API.
    public static func fillPlaceholders(in text: String, isURL: Bool, value: String) -> (found: [String], filled: String, problems: [String], unsetProblems: [String]) {
        let found = PlaceholderFiller.namedPlaceholders(in: text, isURL: isURL)
        var environment: [String: String] = [:]
        for (_, name) in found { environment[name] = value }
        var everything = PlaceholderFiller(options: DriftOptions(environment: environment), replacement: "[REDACTED]")
        let filled = everything.fill(text, in: "the input", isURL: isURL)
        var nothing = PlaceholderFiller(options: DriftOptions(environment: [:]), replacement: "[REDACTED]")
        _ = nothing.fill(text, in: "the input", isURL: isURL)
        return (found.map(\.spelling), filled, everything.problems, nothing.problems)
    }

    /// Replaces every entry of a HAR document with itself, as `--update` rewrites drifted entries:
    /// `nil` when the document does not load, else the spliced document, which must load with as
    /// many entries. Not API.
    public static func spliceEveryEntry(of data: Data) -> (spliced: Data?, entries: Int) {
        guard let archive = try? HTTPArchive(data: data, source: "fuzz-input.har") else { return (nil, 0) }
        var replacements: [Int: RecordedRequest] = [:]
        for (position, entry) in zip(archive.positions, archive.entries) { replacements[position] = entry }
        return ((try? HTTPArchive.splicing(data, replacing: replacements)) ?? nil, archive.entries.count)
    }
}
