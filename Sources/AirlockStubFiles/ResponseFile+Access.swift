import AirlockBase
import AirlockCore
import Foundation

extension ResponseFile {
    /// Where a document's relative `file` paths resolve, and which files it may name.
    package struct Access: Sendable {
        fileprivate enum Rule: Sendable {
            case anywhere
            case inside(URL, expected: String)
            case refused(problem: String, expected: String)
        }

        /// The folder relative paths resolve against.
        package let base: URL
        fileprivate let rule: Rule

        /// Relative paths resolve against `base`; absolute paths name any file (a stub file on
        /// disk, which its author controls).
        package static func relative(to base: URL) -> Access {
            Access(base: base, rule: .anywhere)
        }

        /// Paths resolve against `root` and must stay inside it once `..` and symbolic links are
        /// followed (stubs sent to a server by someone else).
        /// - Parameter expected: How to get a file served that is outside, for the error.
        package static func inside(_ root: URL, expected: String) -> Access {
            Access(base: root, rule: .inside(root, expected: expected))
        }

        /// No file responses at all.
        package static func refused(problem: String, expected: String) -> Access {
            Access(base: URL(fileURLWithPath: "/"), rule: .refused(problem: problem, expected: expected))
        }
    }
}

extension JSONNode {
    /// The value as the path of a response file that `access` allows and that can be read now —
    /// found when the document is read, not when the first request asks for it.
    package func responseFile(_ access: ResponseFile.Access) throws(StubFileError) -> URL {
        let path = try string()
        let url = ResponseFile.url(for: path, relativeTo: access.base)
        let anywhere: String
        switch access.rule {
        case .anywhere:
            anywhere = "a file path, relative to the stub file's folder or absolute"
        case .refused(let problem, let expected):
            throw error(.responseFileOutsideRoot, problem, expected: expected)
        case .inside(let root, let expected):
            // With `..` and symbolic links followed, so that neither leads out.
            let base = root.standardizedFileURL.resolvingSymlinksInPath().path
            let resolved = url.standardizedFileURL.resolvingSymlinksInPath().path
            guard resolved.hasPrefix(base.hasSuffix("/") ? base : base + "/") else {
                throw error(.responseFileOutsideRoot, "\"\(path)\" is outside \(base)", expected: expected)
            }
            anywhere = "a file path inside \(base)"
        }
        switch ResponseFile.problem(at: url) {
        case .missing: throw error(.responseFileUnavailable, "\"\(path)\" does not exist (looked for \(url.path))", expected: anywhere)
        case .folder: throw error(.responseFileUnavailable, "\"\(path)\" is a folder (\(url.path))", expected: "a file inside it")
        case .unreadable: throw error(.responseFileUnavailable, "\"\(path)\" cannot be read (\(url.path))", expected: "a file this user may read")
        case nil: return url
        }
    }
}
