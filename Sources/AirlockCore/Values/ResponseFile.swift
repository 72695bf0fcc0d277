import Foundation

/// A response body read from a file: where a path leads, and whether the file can be read now.
package enum ResponseFile {
    /// Why a file cannot be a response body.
    package enum Problem: Sendable, Equatable {
        /// Nothing is at the path.
        case missing
        /// The path is a folder.
        case folder
        /// The file exists but this process may not read it.
        case unreadable
    }

    /// The file a path names: absolute as it is, relative against `base`.
    package static func url(for path: String, relativeTo base: URL) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : base.appendingPathComponent(path)
    }

    /// Why the file at `url` cannot be read as a body now, if it cannot.
    package static func problem(at url: URL) -> Problem? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { return .missing }
        if isFolder.boolValue { return .folder }
        return FileManager.default.isReadableFile(atPath: url.path) ? nil : .unreadable
    }
}
