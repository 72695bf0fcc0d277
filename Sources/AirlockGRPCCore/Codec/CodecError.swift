/// Why a message could not be decoded or encoded: the field path where it happened
/// (`order.items[2].price`) and what was wrong there.
package struct CodecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path from the top message: its short name in lowerCamelCase, then fields, indices
    /// (`[2]`) and map keys (`["eu"]`).
    package let path: String
    /// What was wrong.
    package let problem: String

    package var description: String { "\(path): \(problem)" }
}

/// A path inside a message, built as the codec descends.
struct FieldPath {
    enum Step {
        case field(String)
        case index(Int)
        case key(String)
    }

    private(set) var steps: [Step] = []
    let root: String

    init(root: String) {
        self.root = root
    }

    func appending(_ step: Step) -> FieldPath {
        var copy = self
        copy.steps.append(step)
        return copy
    }

    var text: String {
        var text = root
        for step in steps {
            switch step {
            case .field(let name): text += "." + name
            case .index(let index): text += "[\(index)]"
            case .key(let key): text += "[\"\(key.count > 40 ? String(key.prefix(40)) + "…" : key)\"]"
            }
        }
        return text
    }

    func error(_ problem: String) -> CodecError {
        CodecError(path: text, problem: problem)
    }
}
