/// The members of a JSON object in document order, each key once, read like a dictionary.
///
/// `object[key]`, `object.keys`, `for (key, value) in object`, `mapValues` and `filter` work as
/// they do on `[String: JSONValue]`, but iteration follows the document, so a document written
/// back (``JSONValue/compactData()``) keeps its order. Equality ignores the order, as JSON's does.
///
/// A key given twice keeps its first position and its last value, as Foundation's
/// `JSONSerialization` and Jackson's tree model (WireMock's parser) do: `{"a": 1, "b": 2, "a": 3}`
/// reads as `a: 3, b: 2`.
///
/// Lookups scan the members of a small object, which is faster than hashing up to about two dozen
/// keys; an object with more than ``indexThreshold`` members keeps a dictionary of positions.
package struct JSONMembers: Sendable {
    /// A key and its value.
    package typealias Element = (key: String, value: JSONValue)

    /// Above this many members, lookups go through a dictionary of positions. Measured (release
    /// build, keys like `field12`): a scan costs 8 ns over 4 keys, 48 ns over 16, 76 ns over 24
    /// and 124 ns over 32; a dictionary lookup 60–95 ns whatever the count.
    package static let indexThreshold = 24

    private var elements: [Element]
    /// The position of each key, once there are more than ``indexThreshold`` members.
    private var positions: [String: Int]?

    /// No members.
    package init() {
        elements = []
    }

    /// Members in the given order; a repeated key keeps its first position and its last value.
    package init(_ members: some Sequence<Element>) {
        self.init()
        for (key, value) in members {
            self[key] = value
        }
    }

    /// The dictionary's members, sorted by key (a dictionary has no order of its own to keep).
    package init(_ dictionary: [String: JSONValue]) {
        self.init(dictionary.sorted { $0.key < $1.key })
    }

    /// The keys in document order.
    package var keys: LazyMapCollection<[Element], String> { elements.lazy.map(\.key) }

    /// The values in document order.
    package var values: LazyMapCollection<[Element], JSONValue> { elements.lazy.map(\.value) }

    /// The value for `key`, or `nil`. Setting a new key appends it; setting an existing one
    /// replaces its value in place; setting `nil` removes it.
    package subscript(key: String) -> JSONValue? {
        get {
            position(of: key).map { elements[$0].value }
        }
        set {
            if let position = position(of: key) {
                if let newValue {
                    elements[position].value = newValue
                } else {
                    elements.remove(at: position)
                    reindex()
                }
            } else if let newValue {
                elements.append((key, newValue))
                if positions != nil {
                    positions![key] = elements.count - 1
                } else if elements.count > Self.indexThreshold {
                    reindex()
                }
            }
        }
    }

    /// The same keys in the same order, each value transformed.
    package func mapValues(_ transform: (JSONValue) throws -> JSONValue) rethrows -> JSONMembers {
        var mapped = self
        for index in mapped.elements.indices {
            mapped.elements[index].value = try transform(mapped.elements[index].value)
        }
        return mapped
    }

    /// The members for which `isIncluded` is true, in order.
    package func filter(_ isIncluded: (Element) throws -> Bool) rethrows -> JSONMembers {
        var kept = JSONMembers()
        kept.elements = try elements.filter(isIncluded)
        kept.reindex()
        return kept
    }

    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return elements.firstIndex { $0.key == key }
    }

    private mutating func reindex() {
        guard elements.count > Self.indexThreshold else {
            positions = nil
            return
        }
        var positions: [String: Int] = [:]
        positions.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            positions[element.key] = index
        }
        self.positions = positions
    }
}

extension JSONMembers: RandomAccessCollection {
    package var startIndex: Int { elements.startIndex }
    package var endIndex: Int { elements.endIndex }
    package subscript(position: Int) -> Element { elements[position] }
}

extension JSONMembers: ExpressibleByDictionaryLiteral {
    /// Members in the literal's order; a repeated key keeps its first position and its last value.
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.lazy.map { (key: $0.0, value: $0.1) })
    }
}

extension JSONMembers: Equatable {
    /// The same keys with equal values, in any order.
    package static func == (lhs: JSONMembers, rhs: JSONMembers) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (index, (key, value)) in lhs.elements.enumerated() {
            // Most comparisons are of documents in the same order: try the same position first.
            let same = rhs.elements[index]
            guard let other = same.key == key ? same.value : rhs[key], other == value else { return false }
        }
        return true
    }
}

extension JSONMembers: CustomStringConvertible {
    /// `["b": 1, "a": 2]`, in document order.
    package var description: String {
        elements.isEmpty ? "[:]" : "[" + elements.map { "\($0.key.debugDescription): \($0.value)" }.joined(separator: ", ") + "]"
    }
}
