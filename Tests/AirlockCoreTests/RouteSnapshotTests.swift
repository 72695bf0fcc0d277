@testable import AirlockBase
@testable import AirlockCore
@_spi(AirlockTransport) import AirlockCore
import Foundation
import Testing

/// Requests match on a snapshot of the routes read without the registry's lock, while stubs are
/// registered and removed: no request ever sees half a registration, and the journal keeps the
/// order the requests were answered in.
struct RouteSnapshotTests {
    private func request(_ path: String, host: String = "a.test") -> IncomingRequest {
        IncomingRequest(method: "GET", url: "https://\(host)\(path)", host: host, path: path, queryItems: [])
    }

    @Test func concurrentRegistrationAndMatchingNeverTearAResult() {
        let registry = MockRegistry(snippetStyle: .swift)
        let reserved = Locked(0)
        // The paths whose registration has returned: only those must be answered.
        let registered = Locked<[Int]>([])
        let wrong = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<300 {
                if worker < 2 {
                    // Writers: each batch adds a path, a more specific stub for an earlier path and
                    // removes nothing; every body names the path it answers.
                    let n = reserved.withLock { count in
                        count += 1
                        return count
                    }
                    registry.register([
                        Registration(host: "a.test", path: "/p/\(n)", responses: [.plaintext("/p/\(n)", lifetime: .eternal)]),
                        Registration(host: "*.test", path: "/p/\(n)", responses: [.plaintext("wild /p/\(n)", lifetime: .eternal)]),
                    ])
                    registered.withLock { $0.append(n) }
                } else {
                    let known = registered.withLock { $0 }
                    guard !known.isEmpty else { continue }
                    let n = known[(round * 7 + worker) % known.count]
                    let text = registry.resolve(request("/p/\(n)"), for: .socket).stubbedText
                    // The exact host beats the wildcard: a snapshot holds both or neither.
                    if text != "/p/\(n)" { wrong.withLock { $0.append("\(n): \(text ?? "unmatched")") } }
                }
            }
        }
        #expect(wrong.withLock { $0 }.isEmpty)
        #expect(registry.stubSummaries.count == 2 * reserved.withLock { $0 })
    }

    /// A thread remembers the hosts its last request matched, for the snapshot it matched on:
    /// a new host pattern, another registry or a removed host is never answered from that memory.
    @Test func theHostsALastRequestMatchedAreNeverReusedForAnotherSnapshot() {
        let registry = MockRegistry(snippetStyle: .swift)
        registry.register([Registration(host: "*.test", path: "/h", responses: [.plaintext("wildcard", lifetime: .eternal)])])
        #expect(registry.resolve(request("/h"), for: .socket).stubbedText == "wildcard")
        #expect(registry.resolve(request("/h"), for: .socket).stubbedText == "wildcard")
        // A more specific host pattern for the same host: the next request must walk the new trie.
        registry.register([Registration(host: "a.test", path: "/h", responses: [.plaintext("exact", lifetime: .eternal)])])
        #expect(registry.resolve(request("/h"), for: .socket).stubbedText == "exact")
        // Another registry on the same thread, the same host text: its own routes answer.
        let other = MockRegistry(snippetStyle: .swift)
        other.register([Registration(host: "a.test", path: "/h", responses: [.plaintext("other", lifetime: .eternal)])])
        #expect(other.resolve(request("/h"), for: .socket).stubbedText == "other")
        #expect(registry.resolve(request("/h"), for: .socket).stubbedText == "exact")
        // The host removed: only the wildcard is left.
        registry.removeAll(forHost: "a.test")
        #expect(registry.resolve(request("/h"), for: .socket).stubbedText == "wildcard")
        // The trie steps of a remembered host still count toward the match's bound.
        let steps = registry.lastMatchSteps
        _ = registry.resolve(request("/h"), for: .socket)
        #expect(registry.lastMatchSteps == steps && steps > 0)
    }

    /// An unmatched request looks for its nearest stubs under the neighbour index's own lock:
    /// while that lock is held, matched requests are still answered (they never take it), and
    /// the diagnosis leaves out the stubs removed since they were indexed.
    @Test func theNeighbourSearchHoldsNoLockAMatchedRequestNeeds() {
        let registry = MockRegistry(snippetStyle: .swift)
        registry.register([
            Registration(host: "a.test", path: "/users/1", responses: [.plaintext("one", lifetime: .eternal)]),
            Registration(host: "b.test", path: "/users/2", responses: [.plaintext("two", lifetime: .eternal)]),
        ])
        let answered = DispatchSemaphore(value: 0)
        let text = Locked<String?>(nil)
        let waited = registry.neighbours.withLock { _ in
            DispatchQueue.global().async {
                text.withLock { $0 = registry.resolve(self.request("/users/1"), for: .socket).stubbedText }
                answered.signal()
            }
            // Far off: only a matched request that waits for this lock misses it.
            return answered.wait(timeout: .now() + 60)
        }
        #expect(waited == .success)
        #expect(text.withLock { $0 } == "one")

        let unmatched = RecordedRequest(sequence: 1, request: request("/users/3", host: "b.test"), date: Date())
        #expect(registry.diagnosis(for: unmatched).nearest.contains { $0.stub.contains("/users/2") })
        registry.removeAll(forHost: "b.test")
        let after = registry.diagnosis(for: unmatched).nearest
        #expect(!after.contains { $0.stub.contains("/users/2") })
        #expect(after.contains { $0.stub.contains("/users/1") })
    }

    @Test func removingEverythingWhileMatchingAnswersFromOneEpochOrNone() {
        let registry = MockRegistry(snippetStyle: .swift)
        let wrong = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            for round in 0..<400 {
                if worker == 0 {
                    registry.removeAll()
                    registry.register((0..<20).map { Registration(host: "a.test", path: "/r/\($0)", responses: [.plaintext("r\($0)", lifetime: .eternal)]) })
                } else {
                    let n = (round + worker) % 20
                    if let text = registry.resolve(request("/r/\(n)"), for: .socket).stubbedText, text != "r\(n)" {
                        wrong.withLock { $0.append("\(n): \(text)") }
                    }
                }
            }
        }
        #expect(wrong.withLock { $0 }.isEmpty)
    }

    @Test func theJournalKeepsTheOrderOfTheRequests() {
        let registry = MockRegistry(snippetStyle: .swift)
        registry.register([Registration(host: "a.test", path: "/*", responses: [.plaintext("x", lifetime: .eternal)])])
        for n in 0..<50 {
            _ = registry.resolve(request(n.isMultiple(of: 5) ? "/missing/\(n)" : "/\(n)"), for: .socket)
        }
        let entries = registry.journal.all
        #expect(entries.map(\.sequence) == Array(1...50))
        #expect(entries.map(\.path) == (0..<50).map { $0.isMultiple(of: 5) ? "/missing/\($0)" : "/\($0)" })
        #expect(entries.map { $0.stub != nil } == (0..<50).map { !$0.isMultiple(of: 5) })
    }

    @Test func concurrentRequestsEachGetOneJournalEntryNamingTheirOwnStub() {
        let registry = MockRegistry(snippetStyle: .swift)
        registry.register((0..<16).map { Registration(host: "a.test", path: "/\($0)", responses: [.plaintext("\($0)", lifetime: .eternal)]) })
        DispatchQueue.concurrentPerform(iterations: 16) { n in
            for _ in 0..<50 { _ = registry.resolve(request("/\(n)"), for: .socket) }
        }
        let entries = registry.journal.all
        #expect(entries.count == 16 * 50)
        #expect(entries.map(\.sequence) == Array(1...(16 * 50)))
        #expect(entries.allSatisfy { $0.stub == "host \"a.test\", path \"\($0.path)\"" })
    }

    @Test func registeringBetweenRequestsIsSeenByTheNextRequest() {
        let registry = MockRegistry(snippetStyle: .swift)
        for n in 0..<200 {
            registry.register([Registration(host: "a.test", path: "/\(n)", responses: [.plaintext("\(n)")])])
            #expect(registry.resolve(request("/\(n)"), for: .socket).stubbedText == "\(n)")
        }
        #expect(registry.queuedResponseCount == 0)
        registry.removeAll(forHost: "a.test")
        registry.register([Registration(host: "a.test", path: "/0", responses: [.plaintext("again")])])
        #expect(registry.resolve(request("/0"), for: .socket).stubbedText == "again")
        #expect(registry.resolve(request("/1"), for: .socket).stubbedText == nil)
    }

    @Test func aMatcherThatResolvesARequestOfItsOwnMatchesWithItsOwnScratch() {
        let registry = MockRegistry(snippetStyle: .swift)
        let requirement = RequestMatcher("asks the registry for /inner") { _ in
            registry.resolve(request("/inner"), for: .socket).stubbedText == "inner"
        }
        registry.register([
            Registration(host: "a.test", path: "/outer", requirement: requirement, responses: [.plaintext("outer")]),
            Registration(host: "a.test", path: "/inner", responses: [.plaintext("inner")]),
        ])
        #expect(registry.resolve(request("/outer"), for: .socket).stubbedText == "outer")
        #expect(registry.journal.all.map(\.path) == ["/inner", "/outer"])
    }
}
