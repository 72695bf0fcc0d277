#if canImport(CLibXML2)
import AirlockWireMock
import Foundation

/// `equalToXml` as WireMock 2.35 asks XMLUnit to compare: white space around text ignored,
/// comments ignored, names and namespaces as `namespaceAwareness` reads them (``XMLTree``),
/// children paired by name whatever their order (then by their text with
/// `ignoreOrderOfSameNode`), a namespace URI compared only where the expected document has one, and only the comparisons WireMock counts (element names, node types,
/// text, attribute names and values, how many attributes and children, processing
/// instructions) able to differ — less those in `exemptedComparisons`, and, with `enablePlaceholders`, values the
/// expected document gives as `${xmlunit.ignore}`, `${xmlunit.isNumber}`,
/// `${xmlunit.matchesRegex(…)}` or `${xmlunit.isDateTime}`. The distance is the share of
/// counted comparisons that differ.
struct XMLEquality: WireMockXMLEquality {
    let expected: XMLTree
    let exempted: Set<String>
    let placeholders: XMLPlaceholders?
    let awareness: WireMockXMLNamespaceAwareness
    let byText: Bool

    init(expected: XMLTree, options: WireMockXMLEqualityOptions) throws(WireMockXMLEngineError) {
        self.expected = expected
        exempted = options.exemptedComparisons
        awareness = options.namespaceAwareness
        byText = options.ignoreOrderOfSameNode
        placeholders = options.placeholders ? try XMLPlaceholders(opening: options.openingDelimiter, closing: options.closingDelimiter) : nil
        if let placeholders { try placeholders.check(expected.children) }
    }

    func compare(_ actual: String) -> (matched: Bool, distance: Double) {
        guard let test = try? XMLTree(actual, awareness: awareness) else { return (false, 1) }
        var tally = Tally(exempted: exempted)
        compareChildren(expected.children, test.children, &tally)
        guard tally.total > 0 else { return (tally.differences == 0, tally.differences == 0 ? 0 : 1) }
        return (tally.differences == 0, Double(tally.differences) / Double(tally.total))
    }

    /// The counted comparisons and those that differ.
    struct Tally {
        let exempted: Set<String>
        var total = 0
        var differences = 0

        mutating func count(_ type: String, equal: Bool) {
            total += 1
            if !equal, !exempted.contains(type) { differences += 1 }
        }
    }

    private func compareChildren(_ control: [XMLTree.Node], _ test: [XMLTree.Node], _ tally: inout Tally) {
        // A text the expected document ignores may be missing altogether.
        let ignorable = control.filter { node in
            if case .text(let text) = node { placeholders?.ignores(text) == true } else { false }
        }.count
        tally.count("CHILD_NODELIST_LENGTH", equal: control.count == test.count || (test.count < control.count && control.count - test.count <= ignorable))
        // XMLUnit's default node matcher over both lists sorted by local name (stable).
        let sortedControl = sorted(control)
        let sortedTest = sorted(test)
        var used = [Bool](repeating: false, count: sortedTest.count)
        var last = -1
        for node in sortedControl {
            let order = Array((last + 1)..<sortedTest.count) + Array(0..<min(last + 1, sortedTest.count))
            if let index = order.first(where: { !used[$0] && node.canPair(with: sortedTest[$0], awareness: awareness) }) {
                used[index] = true
                last = index
                compareNodes(node, sortedTest[index], &tally)
            } else if case .text(let text) = node, placeholders?.ignores(text) == true {
                tally.count("CHILD_LOOKUP", equal: true)
            } else {
                tally.count("CHILD_LOOKUP", equal: false)
            }
        }
    }

    /// XMLUnit's order-invariant matcher's order: by local name, then — with
    /// `ignoreOrderOfSameNode` — by text, stable otherwise.
    private func sorted(_ nodes: [XMLTree.Node]) -> [XMLTree.Node] {
        let keyed = nodes.enumerated().map { (node: $0.element, name: $0.element.sortKey, text: byText ? $0.element.textContent : "", offset: $0.offset) }
        return keyed.sorted { ($0.name, $0.text, $0.offset) < ($1.name, $1.text, $1.offset) }.map(\.node)
    }

    private func compareNodes(_ control: XMLTree.Node, _ test: XMLTree.Node, _ tally: inout Tally) {
        switch (control, test) {
        case (.element(let a), .element(let b)):
            tally.count("NODE_TYPE", equal: true)
            tally.count("ELEMENT_TAG_NAME", equal: a.name == b.name)
            // WireMock counts a difference only where the expected document has a value.
            if let namespace = a.namespace { tally.count("NAMESPACE_URI", equal: namespace == b.namespace) }
            compareAttributes(a, b, &tally)
            compareChildren(a.children, b.children, &tally)
        case (.text(let a), .text(let b)):
            tally.count("NODE_TYPE", equal: true)
            tally.count("CHILD_NODELIST_LENGTH", equal: true)
            tally.count("TEXT_VALUE", equal: valuesEqual(a, b))
        case (.processingInstruction(let target, let data), .processingInstruction(let otherTarget, let otherData)):
            tally.count("NODE_TYPE", equal: true)
            tally.count("PROCESSING_INSTRUCTION_TARGET", equal: target == otherTarget)
            tally.count("PROCESSING_INSTRUCTION_DATA", equal: data == otherData)
        case (.entityReference(let a), .entityReference(let b)):
            tally.count("NODE_TYPE", equal: true)
            tally.count("TEXT_VALUE", equal: a == b)
        default:
            tally.count("NODE_TYPE", equal: false)
        }
    }

    private func compareAttributes(_ control: XMLTree.Element, _ test: XMLTree.Element, _ tally: inout Tally) {
        let missingIgnored = control.attributes.filter { attribute in
            placeholders?.ignores(attribute.value) == true && !test.attributes.contains { $0.name == attribute.name && $0.namespace == attribute.namespace }
        }.count
        tally.count("ELEMENT_NUM_ATTRIBUTES", equal: control.attributes.count == test.attributes.count || control.attributes.count - missingIgnored == test.attributes.count)
        for attribute in control.attributes {
            guard let other = test.attributes.first(where: { $0.name == attribute.name && $0.namespace == attribute.namespace }) else {
                tally.count("ATTR_NAME_LOOKUP", equal: placeholders?.ignores(attribute.value) == true)
                continue
            }
            tally.count("NODE_TYPE", equal: true)
            tally.count("ATTR_VALUE", equal: valuesEqual(attribute.value, other.value))
        }
    }

    private func valuesEqual(_ control: String, _ test: String) -> Bool {
        if control == test { return true }
        return placeholders?.accepts(control: control, test: test) == true
    }
}
#endif
