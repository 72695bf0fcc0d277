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

    /// Reads the body. Reading a file blocks: call this off any serial queue or event loop.
    /// - Parameter owner: The response's stub, or the unmocked policy, for messages.
    package func load(owner: ExchangeFailure.Owner) -> Result<Data, ExchangeFailure> {
        switch self {
        case .data(let data):
            return .success(data)
        case .stream(let stream):
            return .success(stream.body)
        case .failure(let problem):
            return .failure(.responseUnservable(owner: owner, problem: problem))
        case .webSocket:
            return .failure(.webSocketNeedsServer(owner: owner))
        case .error, .fault, .computed, .proxy:
            // Planning makes these plans of their own: a response to send never has one.
            return .failure(.responseUnservable(owner: owner, problem: "it has no body to send"))
        case .file(let url):
            let path = url.isFileURL ? url.path : url.absoluteString
            switch ResponseFile.problem(at: url) {
            case .missing:
                return .failure(.fileMissing(path: path, owner: owner, workingDirectory: FileManager.default.currentDirectoryPath))
            case .folder:
                return .failure(.notAFile(path: path, owner: owner))
            default:
                break
            }
            do {
                return .success(try Data(contentsOf: url))
            } catch {
                return .failure(.fileUnreadable(path: path, owner: owner, reason: error.localizedDescription))
            }
        }
    }
}
