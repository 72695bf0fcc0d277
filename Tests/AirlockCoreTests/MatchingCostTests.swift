@testable import AirlockCassettes
@testable import AirlockStubFiles
@testable import AirlockWireMock
@testable import AirlockBase
@testable import AirlockCore
@_spi(AirlockTransport) import AirlockCore
import Foundation
import Testing

/// Matching costs what the request and the patterns are, never more: counted in trie steps, which
/// do not depend on the machine's speed.
struct MatchingCostTests {
    private func request(_ path: String) -> IncomingRequest {
        IncomingRequest(method: "GET", url: "https://a.test\(path)", host: "a.test", path: path, queryItems: [])
    }

    /// Trie steps of the match of `path` against a registry holding just `pattern`.
    private func steps(pattern: String, path: String) -> (steps: Int, matched: Bool) {
        let registry = MockRegistry(snippetStyle: .swift)
        #expect(registry.register([Registration(host: "a.test", path: pattern, responses: [.plaintext("x", lifetime: .eternal)])]).isEmpty)
        let exchange = registry.resolve(request(path), for: .urlSession)
        return (registry.lastMatchSteps, exchange.stub != nil)
    }

    /// A registry keeps a route and a route group for each of up to 100,000 stubs: what few stubs
    /// ask (a query, a requirement, a scenario) and the host pattern their routes share are one
    /// reference each, so a route stays within two cache lines (it was 248 bytes, and 100,000 stubs
    /// took +112 MB; BENCHMARKS, "Memory").
    @Test func aRouteKeepsOnlyWhatEveryStubNeedsInline() {
        #expect(MemoryLayout<MockRegistry.Route>.stride <= 128)
        #expect(MemoryLayout<MockRegistry.RouteGroup>.stride <= 32)
    }

    @Test(arguments: [
        ("/**/a/**/a/**/a/z", 1_000, false),
        ("/**/a/**/a/**/a/z", 1_000, true),
        ("/**/**/**/**/**/**/**/**/**/**/z", 30, false),
        ("/**/*/**/*/**/*/**/a*/**/q", 500, false),
    ])
    func severalDoubleStarsStayWithinThePatternTimesThePath(pattern: String, segments: Int, endsInZ: Bool) {
        let path = String(repeating: "/a", count: segments) + (endsInZ ? "/z" : "")
        let hostile = steps(pattern: pattern, path: path)
        #expect(hostile.matched == endsInZ)
        // The bound: every (pattern node, position) pair at most once, plus the host's labels.
        let patternNodes = pattern.split(separator: "/").count + 1
        let bound = patternNodes * (segments + 2) + 8
        #expect(hostile.steps <= bound, "\(hostile.steps) steps for \(segments) segments; the bound is \(bound)")
        // And against a plain pattern of the same length: a small multiple, not an explosion.
        let plain = steps(pattern: "/" + Array(repeating: "a", count: segments).joined(separator: "/") + "/z", path: path)
        #expect(hostile.steps <= 4 * patternNodes * max(plain.steps, 1), "hostile \(hostile.steps), plain \(plain.steps)")
    }

    @Test func memoisedMatchingFindsWhatTheFullSearchFinds() throws {
        // Every way a `**` can consume segments still matches when it should.
        let cases: [(String, String, Bool)] = [
            ("/**", "/", true),
            ("/**", "/a/b/c", true),
            ("/a/**", "/a", true),
            ("/a/**/b", "/a/b", true),
            ("/a/**/b", "/a/x/y/b", true),
            ("/a/**/b", "/a/x/y/c", false),
            ("/**/b/**/b", "/b/b", true),
            ("/**/b/**/b", "/b/x/b/y", false),
            ("/**/*/c", "/c", false),
            ("/**/*/c", "/x/c", true),
            ("/**/a*/**/z", "/q/ab/r/z", true),
            ("/**/a*/**/z", "/q/b/r/z", false),
            ("/**/**/x", "/x", true),
        ]
        for (pattern, path, expected) in cases {
            #expect(steps(pattern: pattern, path: path).matched == expected, "\(pattern) against \(path)")
            // The single-pattern matcher (diagnostics, Airgap's hosts) agrees.
            #expect(try PathPattern(pattern).matches(path) == expected, "PathPattern \(pattern) against \(path)")
        }
    }
}
