@testable import AirlockCassettes
@testable import AirlockStubFiles
@testable import AirlockWireMock
@testable import AirlockBase
@testable import AirlockCore
@_spi(AirlockTransport) import AirlockCore
import Foundation
import Testing

/// `requiring:` matchers run outside the registry's lock, and a response is taken only if the
/// registry did not change meanwhile: lifetimes stay exact under real concurrency.
struct MatchingOutsideTheLockTests {
    private func request(_ path: String) -> IncomingRequest {
        IncomingRequest(method: "GET", url: "https://a.test\(path)", host: "a.test", path: path, queryItems: [])
    }

    @Test func eachLimitedResponseGoesToExactlyAsManyConcurrentRequests() {
        let registry = MockRegistry(snippetStyle: .swift)
        let asked = Locked(0)
        // The matcher reads the registry, which would deadlock if it ran under the lock.
        let requirement = RequestMatcher("reads the registry") { _ in
            asked.withLock { $0 += 1 }
            return registry.queuedResponseCount > 0
        }
        #expect(registry.register([
            Registration(host: "a.test", path: "/x", requirement: requirement, responses: [.plaintext("once")]),
            Registration(host: "a.test", path: "/x", responses: [.plaintext("fallback", lifetime: .eternal)]),
            Registration(host: "a.test", path: "/x", requirement: requirement, responses: [.plaintext("thrice", lifetime: .multiple(3))]),
        ]).isEmpty)
        let answers = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 64) { _ in
            let text = registry.resolve(request("/x"), for: .socket).stubbedText ?? "unanswered"
            answers.withLock { $0.append(text) }
        }
        let counts = answers.withLock { Dictionary($0.map { ($0, 1) }, uniquingKeysWith: +) }
        #expect(counts == ["once": 1, "thrice": 3, "fallback": 60])
        // Each request asks each matcher at most once: the two conditional stubs, 64 requests.
        #expect(asked.withLock { $0 } <= 2 * 64)
        #expect(registry.journal.all.count == 64)
    }

    @Test func aMatcherThatRegistersAStubMakesTheMatchStartAgainWithItsAnswerKept() {
        let registry = MockRegistry(snippetStyle: .swift)
        let asked = Locked(0)
        let requirement = RequestMatcher("registers a stub") { _ in
            let count = asked.withLock { count in
                count += 1
                return count
            }
            // A more specific stub for the same request appears while the matcher runs.
            registry.register([Registration(host: "a.test", path: "/x", query: ["n": ["\(count)"]], responses: [.plaintext("registered \(count)")])])
            return true
        }
        #expect(registry.register([Registration(host: "a.test", path: "/x", requirement: requirement, responses: [.plaintext("conditional")])]).isEmpty)
        // The registry changed after the matcher was asked: matching starts again, keeps the
        // matcher's answer instead of asking again, and takes the conditional response.
        #expect(registry.resolve(request("/x"), for: .socket).stubbedText == "conditional")
        #expect(asked.withLock { $0 } == 1)
        let withQuery = IncomingRequest(method: "GET", url: "https://a.test/x?n=1", host: "a.test", path: "/x", queryItems: [.init(name: "n", value: "1")])
        #expect(registry.resolve(withQuery, for: .socket).stubbedText == "registered 1")
    }

    @Test func aRejectingMatcherLetsTheNextStubAnswerAndNamesItselfInTheDiagnosis() {
        let registry = MockRegistry(snippetStyle: .swift)
        let requirement = RequestMatcher("never, after reading the unused stubs") { _ in
            _ = registry.unusedStubs
            return false
        }
        #expect(registry.register([Registration(host: "a.test", path: "/x", requirement: requirement, responses: [.plaintext("never")])]).isEmpty)
        let exchange = registry.resolve(request("/x"), for: .socket)
        guard let response = exchange.plannedResponse, let data = response.body.bytesInMemory else {
            Issue.record("expected a 404 with the diagnosis")
            return
        }
        #expect(response.status.code == 404)
        #expect(String(decoding: data, as: UTF8.self).contains("never, after reading the unused stubs: not satisfied"))
    }
}
