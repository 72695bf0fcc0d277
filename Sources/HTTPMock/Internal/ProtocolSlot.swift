/// Slot numbers written as types, so that each slot gets its own `URLProtocol` subclass.
///
/// A session only tells its protocol *class* which session it belongs to; Linux has no API to get
/// from a task to its session. So every mock lists `SlottedMockURLProtocol<N>` for its own slot
/// `N`, a binary number spelled in nested generic types (`One<Zero<One<End>>>` is 5). Building
/// the type for a number takes O(log n) steps, and reading the number back from inside a loading
/// request is a few static calls.
protocol SlotNumber {
    static var value: Int { get }
}

/// The most significant end of a slot number: zero.
enum SlotEnd: SlotNumber {
    static var value: Int { 0 }
}

/// Appends a 0 bit.
enum Zero<Higher: SlotNumber>: SlotNumber {
    static var value: Int { Higher.value << 1 }
}

/// Appends a 1 bit.
enum One<Higher: SlotNumber>: SlotNumber {
    static var value: Int { Higher.value << 1 | 1 }
}

/// The mock protocol subclass for one slot.
final class SlottedMockURLProtocol<Slot: SlotNumber>: MockURLProtocol {
    override class var slot: Int { Slot.value }
}

/// The forwarding (logging) protocol subclass for one slot.
final class SlottedForwardingURLProtocol<Slot: SlotNumber>: ForwardingURLProtocol {
    override class var slot: Int { Slot.value }
}

enum ProtocolSlot {
    /// The `URLProtocol` class whose requests go to the mock holding `slot`.
    static func mockProtocolClass(for slot: Int) -> MockURLProtocol.Type {
        withSlotType(slot, MockClass())
    }

    /// The `URLProtocol` class whose requests go to the observer holding `slot`.
    static func forwardingProtocolClass(for slot: Int) -> ForwardingURLProtocol.Type {
        withSlotType(slot, ForwardingClass())
    }

    /// Something to make from a slot number's type.
    private protocol Visitor {
        associatedtype Result
        func visit<Slot: SlotNumber>(_: Slot.Type) -> Result
    }

    private struct MockClass: Visitor {
        func visit<Slot: SlotNumber>(_: Slot.Type) -> MockURLProtocol.Type { SlottedMockURLProtocol<Slot>.self }
    }

    private struct ForwardingClass: Visitor {
        func visit<Slot: SlotNumber>(_: Slot.Type) -> ForwardingURLProtocol.Type { SlottedForwardingURLProtocol<Slot>.self }
    }

    /// Spells `slot` as a type, most significant bit outermost, and hands it to `visitor`.
    private static func withSlotType<V: Visitor>(_ slot: Int, _ visitor: V) -> V.Result {
        precondition(slot >= 0)
        var number: any SlotNumber.Type = SlotEnd.self
        let bits = Int.bitWidth - slot.leadingZeroBitCount
        for bit in stride(from: bits - 1, through: 0, by: -1) {
            number = appending(slot >> bit & 1 == 1, to: number)
        }
        return visit(number, visitor)
    }

    private static func appending<Higher: SlotNumber>(_ one: Bool, to _: Higher.Type) -> any SlotNumber.Type {
        one ? One<Higher>.self : Zero<Higher>.self
    }

    private static func visit<Slot: SlotNumber, V: Visitor>(_ slot: Slot.Type, _ visitor: V) -> V.Result {
        visitor.visit(slot)
    }
}
