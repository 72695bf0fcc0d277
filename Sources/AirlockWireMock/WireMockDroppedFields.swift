import AirlockBase
import AirlockStubFiles
import Foundation

/// What WireMock 2.35 reads from a mapping's request and silently drops, which Airlock drops too
/// (to serve a folder as WireMock serves it) and names in a load warning:
///
/// - several url fields: the first of `url`, `urlPattern`, `urlPath`, `urlPathPattern`,
///   `urlPathTemplate` is used;
/// - several matchers in one object: the first in the document is used, `absent` always wins;
///   an option the used matcher does not take (`caseInsensitive` beside `contains`) is dropped;
/// - `"absent": false`, which WireMock reads as absent;
/// - `expression` beside a matcher other than `matchesJsonPath` in `bodyPatterns`.
///
/// The warnings go where registration warnings go (standard error for `HTTPMock`, the server's
/// logger for `MockServer` and `airlock serve`).
enum WireMockDroppedFields {
    /// The warnings for a `request` object, each naming the file, the JSON path, what is used,
    /// what is dropped, and how to say what is meant.
    static func warnings(in request: JSONNode) -> [String] {
        guard case .object(let members) = request.value else { return [] }
        var warnings: [String] = []
        let urls = WireMockURLPattern.fieldNames.filter { members[$0] != nil }
        if urls.count > 1 {
            warnings.append(
                warning(
                    request,
                    "has \(list(urls)): WireMock uses \"\(urls[0])\" and drops \(list(Array(urls.dropFirst()))), and so does Airlock",
                    fix: "keep one url field"
                )
            )
        }
        let children = (try? request.members("a request")) ?? []
        for (key, node) in children {
            switch key {
            case "headers", "queryParameters", "cookies", "pathParameters", "formParameters":
                for (_, value) in (try? node.members("named patterns")) ?? [] { multiValue(value, into: &warnings) }
            case "host", "scheme", "clientIp":
                pattern(node, into: &warnings)
            case "bodyPatterns":
                for item in (try? node.array(of: "body patterns")) ?? [] { pattern(item, into: &warnings, inBody: true) }
            case "multipartPatterns":
                for part in (try? node.array(of: "multipart patterns")) ?? [] {
                    for (partKey, partNode) in (try? part.members("a multipart pattern")) ?? [] {
                        if partKey == "headers" {
                            for (_, value) in (try? partNode.members("headers")) ?? [] { multiValue(value, into: &warnings) }
                        } else if partKey == "bodyPatterns" {
                            for item in (try? partNode.array(of: "body patterns")) ?? [] { pattern(item, into: &warnings, inBody: true) }
                        }
                    }
                }
            default:
                break
            }
        }
        return warnings
    }

    private static func multiValue(_ node: JSONNode, into warnings: inout [String]) {
        guard case .object(let members) = node.value else { return }
        for key in ["hasExactly", "includes"] where members[key] != nil {
            for item in (try? node.members("a multi-value pattern").first { $0.key == key }?.node.array(of: "matchers")) ?? [] {
                pattern(item, into: &warnings)
            }
            return
        }
        pattern(node, into: &warnings)
    }

    /// One pattern object, and those nested in `not`, `and`, `or` and `matchesJsonPath`.
    private static func pattern(_ node: JSONNode, into warnings: inout [String], inBody: Bool = false) {
        guard case .object = node.value, let members = try? node.members("a matcher") else { return }
        let keys = members.map(\.key)
        let matchers = keys.filter { WireMockValuePattern.operators[$0] != nil || WireMockValuePattern.refused[$0] != nil }
        guard let used = matchers.contains("absent") ? "absent" : matchers.first else { return }
        let dropped = matchers.filter { $0 != used }
        if !dropped.isEmpty {
            warnings.append(
                warning(
                    node,
                    "has \(list(matchers)): WireMock uses \"\(used)\" and drops \(list(dropped)), and so does Airlock",
                    fix: "keep one matcher, or combine them with {\"and\": [...]}"
                )
            )
        }
        let options = WireMockValuePattern.operators[used] ?? []
        let droppedOptions = keys.filter { !matchers.contains($0) && !options.contains($0) && WireMockValuePattern.droppable.contains($0) }
        if !droppedOptions.isEmpty {
            warnings.append(
                warning(
                    node,
                    "has \(list(droppedOptions)), which \"\(used)\" does not take: WireMock drops \(droppedOptions.count == 1 ? "it" : "them"), and so does Airlock",
                    fix: droppedOptions.contains("caseInsensitive") ? "{\"equalTo\": …, \"caseInsensitive\": true}, or {\"matches\": \"(?i)…\"}" : "the option beside the matcher that takes it"
                )
            )
        }
        if used == "absent", let value = members.first(where: { $0.key == "absent" })?.node.value, value != .bool(true) {
            warnings.append(
                warning(
                    node,
                    "has \"absent\": \(String(decoding: (try? value.compactData()) ?? Data(), as: UTF8.self)), which WireMock reads as absent (the value must not be there), and so does Airlock",
                    fix: "\"absent\": true for a value that must not be there, or {\"matches\": \".*\"} for one that must"
                )
            )
        }
        if inBody, keys.contains("expression"), used != "matchesJsonPath" {
            warnings.append(
                warning(
                    node,
                    "has \"expression\" beside \"\(used)\": WireMock drops the expression and matches the whole body with \"\(used)\", and so does Airlock",
                    fix: "{\"matchesJsonPath\": {\"expression\": \"…\", \"\(used)\": …}} to match the value at the path"
                )
            )
        }
        guard let operand = members.first(where: { $0.key == used })?.node else { return }
        switch used {
        case "not": pattern(operand, into: &warnings)
        case "and", "or": for item in (try? operand.array(of: "matchers")) ?? [] { pattern(item, into: &warnings) }
        case "matchesJsonPath": if case .object = operand.value { pattern(operand, into: &warnings) }
        default: break
        }
    }

    private static func list(_ names: [String]) -> String {
        names.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    private static func warning(_ node: JSONNode, _ problem: String, fix: String) -> String {
        let place = node.error(.conflictingFields, problem, expected: fix)
        return "Airlock warning: \(place.file)\(place.location.map { ", \($0)" } ?? ""): \(problem). To say what you mean: \(fix)."
    }
}
