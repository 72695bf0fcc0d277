import URLProtocolSupport

/// The mock protocol subclass for one slot.
final class SlottedMockURLProtocol<Slot: SlotNumber>: MockURLProtocol {
    override class var slot: Int { Slot.value }
}

/// The process's live mocks, by slot.
enum Directories {
    static let mocks = SlotDirectory()
}

extension ProtocolSlot {
    /// The `URLProtocol` class whose requests go to the mock holding `slot`.
    static func mockProtocolClass(for slot: Int) -> MockURLProtocol.Type {
        withSlotType(slot, MockClass())
    }

    private struct MockClass: Visitor {
        func visit<Slot: SlotNumber>(_: Slot.Type) -> MockURLProtocol.Type { SlottedMockURLProtocol<Slot>.self }
    }
}
