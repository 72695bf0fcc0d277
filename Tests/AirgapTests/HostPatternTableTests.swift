@testable import Airgap
import CAirgap
import Foundation
import ProcessSupport
import Testing

/// One host-pattern language for every layer: a table of names and patterns gives the same
/// verdicts through the Swift matcher (the URLSession layer), the C matcher in this process, a
/// `fork()`ed child and a child that loads the preload library.
@Suite(.aloneAmongGuardedTests)
struct HostPatternTableTests {
    static let patterns = [
        "api.wild.test", "API.WILD.test", "*.wild.test", "**.wild.test", "api-*.wild.test", "api.*.glob.test",
        "*.*.glob.test", "a*b*c.glob.test", "*", "**", "localhost", "localhost:8080",
    ]

    static let names = [
        "api.wild.test", "API.Wild.TEST", "api.wild.test.", "wild.test", "x.api.wild.test", "api-v2.wild.test",
        "api-.wild.test", "apiv2.wild.test", "wild.test.evil", "mywild.test", "api.eu.glob.test", "api.glob.test",
        "api.a.b.glob.test", "abc.glob.test", "axbxc.glob.test", "ac.glob.test", "localhost", "LOCALHOST", "db",
        "xn--bcher-kva.wild.test", "a..wild.test",
    ]

    /// What the documentation's table says, for a few rows (the other checks compare layers).
    @Test(arguments: [
        ("*.wild.test", "wild.test", true), ("*.wild.test", "a.b.wild.test", true), ("*.wild.test", "mywild.test", false),
        ("api.*.glob.test", "api.eu.glob.test", true), ("api.*.glob.test", "api.glob.test", false),
        ("api.*.glob.test", "api.a.b.glob.test", false), ("api-*.wild.test", "api-.wild.test", true),
        ("api-*.wild.test", "api.wild.test", false), ("*", "localhost", true), ("*", "api.wild.test", false),
        ("**", "api.a.b.glob.test", true), ("api.wild.test", "API.Wild.TEST.", true), ("localhost:8080", "localhost", false),
    ])
    func documentedVerdicts(pattern: String, name: String, allowed: Bool) {
        #expect(HostRules([pattern]).allowsName(name) == allowed)
        #expect((airgap_host_pattern_matches(pattern, name) == 1) == allowed)
    }

    @Test(arguments: [
        "api.wild.test", "*.wild.test", "**", "*", "api-*.x", "_srv.example", "localhost:8080", "**.**",
        "a..b", ".x.test", "x.test.", "a**.test", "***", "bücher.test", "a,b.test", "a/b", "a b", "*.", "a\u{7F}b",
    ])
    func swiftAndCAcceptTheSamePatterns(pattern: String) {
        let rules = HostRules([pattern])
        let swiftAccepts = rules.names == [pattern]
        #expect(swiftAccepts == (airgap_host_pattern_is_valid(pattern) == 1), "Swift \(swiftAccepts ? "accepts" : "refuses") \"\(pattern)\"")
        if !swiftAccepts {
            #expect(rules.rejected.map(\.entry) == [pattern])
            #expect(rules.rejected.allSatisfy { !$0.problem.isEmpty })
        }
    }

    @Test func theCMatcherInThisProcessGivesTheSwiftVerdicts() {
        for pattern in Self.patterns {
            let rules = HostRules([pattern])
            for name in Self.names {
                let swift = rules.allowsName(name)
                let c = airgap_host_pattern_matches(pattern, name) == 1
                #expect(swift == c, "\"\(name)\" under \"\(pattern)\": Swift \(swift), C \(c)")
            }
        }
    }

    /// A fresh probe per pattern: its own C matcher with the configured list (the one its hooks
    /// use), a forked copy and a preloaded child (`getent`), each in a network namespace of its own
    /// so that allowed lookups leave nothing.
    @Test(.enabled(if: !ThreadSanitizer.isActive, "an instrumented preload library cannot load into other programs"),
          arguments: patterns)
    func childrenGiveTheSwiftVerdicts(pattern: String) async throws {
        let names = Self.names.joined(separator: ",")
        let output = try await Probe.run(["allow=\(pattern)", "activate", "name-allowed=\(names)", "fork-lookup=\(names)", "preload-lookup=\(names)", "hosts"])
        try #require(output.result("fork-lookup=") == "exit:0", "the forked child needs a network namespace of its own (unshare needs CAP_SYS_ADMIN): \(output)")
        try #require(output.result("preload-lookup=") == "exit:0", "the preloaded child runs through unshare -n (CAP_SYS_ADMIN): \(output)")
        let inProcess = (output.result("name-allowed=") ?? "").split(separator: ",").map { $0 == "1" }
        let reported = (output.result("hosts") ?? "").split(separator: " ").map(String.init)
        let rules = HostRules([pattern])
        for (index, name) in Self.names.enumerated() {
            let swift = rules.allowsName(name)
            #expect(inProcess.indices.contains(index) && inProcess[index] == swift, "C in the probe, \"\(name)\" under \"\(pattern)\": \(output)")
            #expect(!reported.contains("\(name):80") == swift, "forked child, \"\(name)\" under \"\(pattern)\": Swift says \(swift ? "allowed" : "denied"): \(output)")
            #expect(!reported.contains("\(name):0") == swift, "preloaded child, \"\(name)\" under \"\(pattern)\": Swift says \(swift ? "allowed" : "denied"): \(output)")
        }
    }
}
