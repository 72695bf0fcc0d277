import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request body that does not travel in `httpBody`: a body stream, or the body an upload task
/// holds (`upload(for:from:)`, `upload(for:fromFile:)`), which on Linux never reaches the request.
enum RequestBody {
    /// Whether the body must be fetched from a stream or the task.
    static func travelsOutsideTheRequest(_ request: URLRequest, task: URLSessionTask?) -> Bool {
        request.httpBodyStream != nil || task is URLSessionUploadTask
    }

    /// Reads the whole body; `nil` when there is none.
    static func read(_ request: URLRequest, task: URLSessionTask?) -> Data? {
        if let stream = request.httpBodyStream {
            return read(stream)
        }
        if let task {
            return uploadBody(of: task)
        }
        return nil
    }

    private static func read(_ stream: InputStream) -> Data {
        var data = Data()
        stream.open()
        defer { stream.close() }
        let size = 64 * 1024
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        defer { buffer.deallocate() }
        while true {
            let count = stream.read(buffer, maxLength: size)
            guard count > 0 else { break }
            data.append(buffer, count: count)
        }
        return data
    }

    /// The body an upload task holds. swift-corelibs-foundation keeps it in the task's stored
    /// `knownBody` (`.data`, `.file` or `.stream`) and offers no API for it, so read it through
    /// reflection; this runs only for upload tasks.
    private static func uploadBody(of task: URLSessionTask) -> Data? {
        var mirror: Mirror? = Mirror(reflecting: task)
        while let current = mirror {
            if let child = current.children.first(where: { $0.label == "knownBody" }) {
                return data(from: child.value)
            }
            mirror = current.superclassMirror
        }
        return nil
    }

    private static func data(from value: Any) -> Data? {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            return mirror.children.first.flatMap { data(from: $0.value) }
        }
        guard mirror.displayStyle == .enum, let payload = mirror.children.first else { return nil }
        switch payload.value {
        case let bytes as DispatchData: return Data(bytes)
        case let bytes as Data: return bytes
        case let url as URL: return try? Data(contentsOf: url)
        case let stream as InputStream: return read(stream)
        default: return nil
        }
    }
}
