extension JSONValue {
    /// One step down a document: a member of an object, or an element of an array.
    ///
    /// The definite steps of a JSONPath (`.name`, `['name']`, `[2]`, `[-1]`), which response
    /// templates' `jsonPath` and WireMock's JSONPath patterns both take.
    package enum Step: Sendable, Hashable {
        /// `.name` or `['name']`: the member of that name.
        case member(String)
        /// `[2]`: the element at that position; a negative one counts from the end (`[-1]` is the last).
        case index(Int)
    }

    /// The value one step down, or `nil` when there is none: a member of something that is not
    /// an object, a position outside the array.
    package subscript(step: Step) -> JSONValue? {
        switch (step, self) {
        case (.member(let name), .object(let members)):
            return members[name]
        case (.index(let index), .array(let items)):
            let position = index < 0 ? items.count + index : index
            return items.indices.contains(position) ? items[position] : nil
        default:
            return nil
        }
    }

    /// The value at the end of `steps` from here, or `nil` when one of them finds nothing.
    package func value(following steps: some Sequence<Step>) -> JSONValue? {
        var node = self
        for step in steps {
            guard let next = node[step] else { return nil }
            node = next
        }
        return node
    }
}
