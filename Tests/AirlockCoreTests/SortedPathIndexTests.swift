@testable import AirlockBase
import Foundation
import Testing

/// The path index the unmatched-request diagnosis finds near stubs with: how many leading bytes
/// two paths share (compared in place), and the nearest live entries by that measure.
struct SortedPathIndexTests {
    @Test(arguments: [
        ("", "", 0),
        ("/a", "", 0),
        ("/users", "/users", 6),
        ("/users/1", "/users/2", 7),
        ("/v1/items12345/detail", "/v1/items12346/detail", 13),   // longer than a small string
        ("/café/menu", "/cafe/menu", 4),                          // bytes, not characters: é is two
        ("/x", "/xyz", 2),
    ])
    func sharedPrefixCountsLeadingBytes(lhs: String, rhs: String, shared: Int) {
        #expect(SortedPathIndex.sharedPrefix(lhs, rhs) == shared)
        #expect(SortedPathIndex.sharedPrefix(rhs, lhs) == shared)
    }

    @Test func aBridgedStringComparesLikeANativeOne() {
        let bridged = NSString(string: "/users/42/orders") as String
        #expect(SortedPathIndex.sharedPrefix(bridged, "/users/43") == 8)
    }

    @Test func nearestSkipsEntriesThatAreNoLongerLive() {
        var index = SortedPathIndex()
        for (id, path) in ["/users/1", "/users/2", "/orders/1", "/users/3"].enumerated() {
            index.append(id: id, key: 0, path: path)
        }
        index.settle { _ in true }
        let nearest = index.nearest(to: "/users/9", key: 0, count: 2, isLive: { $0 != 1 })
        #expect(Set(nearest) == [0, 3])
    }
}
