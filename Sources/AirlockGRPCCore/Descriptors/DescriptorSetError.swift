/// Why a descriptor set could not be read, or a name is not in it. The description says which
/// file and what is missing, and how to fix it.
package struct DescriptorSetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the descriptor set came from (a path, or what the caller named it).
    package let source: String
    /// What is wrong.
    package let problem: String

    package var description: String { "\(source): \(problem)" }
}
