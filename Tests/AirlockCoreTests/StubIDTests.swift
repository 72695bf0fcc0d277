@_spi(AirlockTransport) import AirlockCore
import Foundation
import Testing

/// The core's generic hooks for a format that finds its stubs by ids of its own and ranks them by
/// a number of its own (what WireMock's mappings use, without the core knowing them).
struct StubIDTests {
    private func answer(_ registry: MockRegistry, _ path: String) -> String? {
        let request = IncomingRequest(method: "GET", url: "https://a.test\(path)", host: "a.test", path: path, query: nil)
        let exchange = registry.resolve(request, for: .urlSession)
        guard exchange.stub != nil, let data = exchange.plannedResponse?.body.bytesInMemory else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    private func stub(_ path: String, _ text: String, id: UUID? = nil, precedence: Registration.Precedence = .specificity) -> Registration {
        var registration = Registration(host: "a.test", path: path, responses: [.plaintext(text, lifetime: .eternal)])
        registration.stubID = id
        registration.precedence = precedence
        return registration
    }

    @Test func aStubWithTheIdOfAnotherReplacesItAndKeepsItsPlace() {
        let registry = MockRegistry(snippetStyle: .swift)
        let first = UUID()
        let second = UUID()
        #expect(registry.register([stub("/a", "one", id: first), stub("/b", "two", id: second), stub("/a", "again", id: first)]).isEmpty)
        #expect(registry.stubIDs == [first, second])
        #expect(answer(registry, "/a") == "again")
        #expect(registry.journal.all.last?.stubID == first, "the journal entry says which id answered")

        #expect(registry.removeStub(id: first))
        #expect(!registry.removeStub(id: first))
        #expect(answer(registry, "/a") == nil)
        #expect(registry.stubIDs == [second] && registry.containsStub(id: second))

        registry.removeAll()
        #expect(registry.stubIDs.isEmpty && !registry.containsStub(id: second))
    }

    @Test func anInvalidStubLeavesTheOneWithItsIdInPlace() {
        let registry = MockRegistry(snippetStyle: .swift)
        let id = UUID()
        #expect(registry.register([stub("/a", "kept", id: id)]).isEmpty)
        #expect(registry.register([stub("no-slash", "broken", id: id)]).count == 1)
        #expect(answer(registry, "/a") == "kept")
    }

    @Test func orderingKeysRankBeforeSpecificityBelowZeroAndAfterItFromZero() {
        let registry = MockRegistry(snippetStyle: .swift)
        #expect(registry.register([
            stub("/items/*", "key 0", precedence: .key(0)),
            stub("/items/1", "specific"),
            stub("/items/**", "key -1", precedence: .key(-1)),
        ]).isEmpty)
        #expect(answer(registry, "/items/1") == "key -1")
        #expect(registry.register([stub("/items/**", "newer key -1", precedence: .key(-1))]).isEmpty)
        #expect(answer(registry, "/items/1") == "newer key -1", "among equal keys the newest wins")

        let plain = MockRegistry(snippetStyle: .swift)
        #expect(plain.register([stub("/items/*", "specificity", precedence: .specificity), stub("/items/1", "key 0", precedence: .key(0))]).isEmpty)
        #expect(answer(plain, "/items/1") == "specificity", "stubs ranked by specificity come before those of key 0")
    }
}
