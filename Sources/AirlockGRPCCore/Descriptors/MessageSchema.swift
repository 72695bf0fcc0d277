/// A message type of a descriptor set: its fields by number and by JSON or `.proto` name.
package struct MessageSchema: Sendable {
    /// The full name, package included, without a leading dot (`airlock.test.orders.Order`).
    package let fullName: String
    /// The `.proto` file that declares it, as the descriptor set names it.
    package let fileName: String
    /// Whether it is a map's entry message (`key` = 1, `value` = 2).
    package let isMapEntry: Bool
    /// Its fields in field-number order.
    package internal(set) var fields: [FieldSchema]
    /// The names of its real oneofs (proto3 `optional`'s synthetic oneofs are not listed).
    package let oneofNames: [String]
    private let indexByNumber: [Int32: Int]
    private let indexByName: [String: Int]

    init(fullName: String, fileName: String, isMapEntry: Bool, fields: [FieldSchema], oneofNames: [String]) {
        self.fullName = fullName
        self.fileName = fileName
        self.isMapEntry = isMapEntry
        let sorted = fields.sorted { $0.number < $1.number }
        self.fields = sorted
        self.oneofNames = oneofNames
        var byNumber: [Int32: Int] = [:]
        var byName: [String: Int] = [:]
        for (index, field) in sorted.enumerated() {
            byNumber[field.number] = index
            byName[field.name] = index
        }
        // JSON names win over `.proto` names when they clash, as in protobuf's JSON parsers.
        for (index, field) in sorted.enumerated() { byName[field.jsonName] = index }
        indexByNumber = byNumber
        indexByName = byName
    }

    /// The field with this number.
    package func field(number: Int32) -> FieldSchema? {
        indexByNumber[number].map { fields[$0] }
    }

    /// The field with this JSON name or `.proto` name (the JSON mapping accepts both).
    package func field(named name: String) -> FieldSchema? {
        indexByName[name].map { fields[$0] }
    }

    /// The short name (`Order` for `airlock.test.orders.Order`).
    package var shortName: String {
        fullName.split(separator: ".").last.map(String.init) ?? fullName
    }
}

/// An enum type of a descriptor set: its values by name and by number.
package struct EnumSchema: Sendable {
    /// The full name, without a leading dot.
    package let fullName: String
    /// The `.proto` file that declares it.
    package let fileName: String
    /// Value names by number (the first name of a number, when `allow_alias` gives it several).
    package let nameByNumber: [Int32: String]
    /// Numbers by value name.
    package let numberByName: [String: Int32]
    /// Whether unknown numbers are kept (proto3's open enums; proto2's are closed).
    package let isOpen: Bool
}

/// A gRPC method: its path, message types and streaming kinds.
package struct MethodSchema: Sendable, Equatable {
    /// The request path, `/package.Service/Method`.
    package let path: String
    /// The service's full name (`airlock.test.orders.OrderService`).
    package let serviceName: String
    /// The method's name (`GetOrder`).
    package let name: String
    /// The request message's full name.
    package let inputType: String
    /// The response message's full name.
    package let outputType: String
    /// The client sends a stream of messages.
    package let isClientStreaming: Bool
    /// The server answers with a stream of messages.
    package let isServerStreaming: Bool
    /// The `.proto` file that declares the service.
    package let fileName: String
}
