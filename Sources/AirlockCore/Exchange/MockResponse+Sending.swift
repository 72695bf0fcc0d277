import AirlockBase
import Dispatch
import Foundation
import HTTPTypes

extension MockResponse {
    /// The fields a server sends with the body: ``headerFields``, less a `Content-Encoding` the
    /// body no longer has (a decoded replay goes out as it is kept).
    package var wireHeaderFields: HTTPFields {
        bodyIsDecoded ? headerFields.removing(names: ["content-encoding"]) : headerFields
    }
}

extension MockResponse.Body {
    /// The bytes, if they are in memory already.
    package var bytesInMemory: Data? {
        if case .data(let data) = self { return data }
        return nil
    }

    /// Reads the body. Reading a file blocks: call this off any serial queue or event loop, or use
    /// ``load(for:completion:)``.
    /// - Parameter stub: The stub the response belongs to (`nil`: the unmocked policy), for messages.
    package func load(for stub: StubDescription?) -> Result<Data, ExchangeFailure> {
        let owner = stub.map { "the response for \($0)" } ?? "the unmocked policy's response"
        switch self {
        case .data(let data):
            return .success(data)
        case .stream(let stream):
            return .success(stream.body)
        case .failure(let problem):
            return .failure(ExchangeFailure(.responseUnavailable, "Airlock: \(owner) cannot be served: \(problem)"))
        case .webSocket:
            return .failure(ExchangeFailure(.responseUnavailable, "Airlock: \(owner) is a WebSocket, which only a server (MockServer, airlock serve) can open"))
        case .error, .fault, .computed, .proxy:
            // Planning makes these actions of their own: a response to send never has one.
            return .failure(ExchangeFailure(.responseUnavailable, "Airlock: \(owner) has no body to send"))
        case .file(let url):
            let path = url.isFileURL ? url.path : url.absoluteString
            let problem = ResponseFile.problem(at: url)
            guard problem != .missing else {
                return .failure(
                    ExchangeFailure(
                        .fileMissing,
                        "Airlock: \(owner) reads the file \(path), which does not exist. Relative paths in Swift "
                            + "resolve against the working directory \(FileManager.default.currentDirectoryPath) "
                            + "(use .file(named:extension:in: Bundle.module) for test resources); in stub files, "
                            + "against the stub file's folder."
                    )
                )
            }
            guard problem != .folder else {
                return .failure(ExchangeFailure(.fileUnreadable, "Airlock: \(owner) reads \(path), which is a folder, not a file. Name a file inside it."))
            }
            do {
                return .success(try Data(contentsOf: url))
            } catch {
                return .failure(
                    ExchangeFailure(.fileUnreadable, "Airlock: \(owner) reads the file \(path), which cannot be read (\(error.localizedDescription)). Check its permissions.")
                )
            }
        }
    }

    /// Loads the body and hands it to `completion`: at once for bytes in memory, from a global
    /// queue for anything that has to be read.
    package func load(for stub: StubDescription?, completion: @escaping @Sendable (Result<Data, ExchangeFailure>) -> Void) {
        if case .data(let data) = self { return completion(.success(data)) }
        DispatchQueue.global().async { completion(self.load(for: stub)) }
    }
}

/// Why the core could not produce what an exchange needed; each transport shows it its own way
/// (a `URLError` with this message, a `500` with it as the body).
package struct ExchangeFailure: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    package enum Kind: Sendable {
        /// A response file is missing.
        case fileMissing
        /// A response file exists but cannot be read.
        case fileUnreadable
        /// The response could not be built.
        case responseUnavailable
    }

    /// What went wrong.
    package let kind: Kind
    /// What went wrong and how to fix it.
    package let description: String

    package init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
