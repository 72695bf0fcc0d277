/// Slot numbers written as types, so that each slot gets its own `URLProtocol` subclass.
///
/// A session only tells its protocol *class* which session it belongs to; Linux has no API to get
/// from a task to its session. So every mock lists `SlottedMockURLProtocol<N>` for its own slot
/// `N`, a binary number spelled in nested generic types (`AppendingOneBit<AppendingZeroBit<AppendingOneBit<End>>>` is 5). Building
/// the type for a number takes O(log n) steps, and reading the number back from inside a loading
/// request is a few static calls.
package protocol SlotNumber {
    static var value: Int { get }
}

/// The most significant end of a slot number: zero.
package enum SlotEnd: SlotNumber {
    package static var value: Int { 0 }
}

/// Appends a 0 bit.
package enum AppendingZeroBit<Higher: SlotNumber>: SlotNumber {
    package static var value: Int { Higher.value << 1 }
}

/// Appends a 1 bit.
package enum AppendingOneBit<Higher: SlotNumber>: SlotNumber {
    package static var value: Int { Higher.value << 1 | 1 }
}

/// Hands the type that spells a slot number to a visitor, which makes the slot's `URLProtocol`
/// subclass from it (`SlottedMockURLProtocol<Slot>` in HTTPMock, the forwarding one in HTTPLogging).
package enum ProtocolSlot {
    /// Something to make from a slot number's type.
    package protocol Visitor {
        associatedtype Result
        func visit<Slot: SlotNumber>(_: Slot.Type) -> Result
    }

    /// Spells `slot` as a type, most significant bit outermost, and hands it to `visitor`.
    package static func withSlotType<V: Visitor>(_ slot: Int, _ visitor: V) -> V.Result {
        precondition(slot >= 0)
        var number: any SlotNumber.Type = SlotEnd.self
        let bits = Int.bitWidth - slot.leadingZeroBitCount
        for bit in stride(from: bits - 1, through: 0, by: -1) {
            number = appending(slot >> bit & 1 == 1, to: number)
        }
        return visit(number, visitor)
    }

    private static func appending<Higher: SlotNumber>(_ one: Bool, to _: Higher.Type) -> any SlotNumber.Type {
        one ? AppendingOneBit<Higher>.self : AppendingZeroBit<Higher>.self
    }

    private static func visit<Slot: SlotNumber, V: Visitor>(_ slot: Slot.Type, _ visitor: V) -> V.Result {
        visitor.visit(slot)
    }
}
