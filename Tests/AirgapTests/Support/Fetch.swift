import Foundation
import NIOCore
import NIOPosix

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a client attempt ended with, as a comparable value.
enum Outcome: Equatable, CustomStringConvertible {
    case status(Int)
    case urlError(Int)
    case failed(String)
    case connected

    var description: String {
        switch self {
        case .status(let code): "HTTP \(code)"
        case .urlError(let code): "URLError \(code)"
        case .failed(let text): "failed: \(text)"
        case .connected: "connected"
        }
    }
}

enum Client {
    static func session(_ configuration: URLSessionConfiguration) -> URLSession {
        configuration.timeoutIntervalForRequest = 10
        return URLSession(configuration: configuration)
    }

    static func fetch(_ session: URLSession, _ request: URLRequest) async -> Outcome {
        do {
            let (_, response) = try await session.data(for: request)
            return .status((response as? HTTPURLResponse)?.statusCode ?? 0)
        } catch let error as URLError {
            return .urlError(error.code.rawValue)
        } catch {
            return .failed("\(error)")
        }
    }

    static func fetch(_ session: URLSession, _ url: String) async -> Outcome {
        await fetch(session, URLRequest(url: URL(string: url)!))
    }

    static func nioConnect(host: String, port: Int) async -> Outcome {
        do {
            let channel = try await ClientBootstrap(group: airgapTestEventLoops)
                .connectTimeout(.seconds(10))
                .connect(host: host, port: port)
                .get()
            try await channel.close()
            return .connected
        } catch {
            return .failed("\(error)")
        }
    }
}
