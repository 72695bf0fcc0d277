import Foundation
import NIOCore
import NIOPosix

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a client attempt ended with, as a comparable value.
enum Outcome: Equatable, Sendable, CustomStringConvertible {
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
    /// The time-out of every client attempt. Generous: a violation symbolicates a call stack on
    /// the very thread that called `connect` or `getaddrinfo` (a libcurl thread, an event loop),
    /// which takes seconds on a loaded machine; a short time-out turned that into -1001 or
    /// "Connect timeout" where the test expected a connection or a specific error.
    static let connectionTimeout: TimeInterval = 120

    /// `configuration` with ``connectionTimeout`` for requests and resources.
    static func configured(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        configuration.timeoutIntervalForRequest = connectionTimeout
        configuration.timeoutIntervalForResource = connectionTimeout
        return configuration
    }

    static func session(_ configuration: URLSessionConfiguration) -> URLSession {
        URLSession(configuration: configured(configuration))
    }

    /// The outcome of `request`; `.failed` after ``hangGuard`` instead of waiting forever (a
    /// request Airgap answers itself has no URLSession time-out).
    static func fetch(_ session: URLSession, _ request: URLRequest) async -> Outcome {
        let what = "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "?")"
        do {
            return try await withTimeout(what) {
                do {
                    let (_, response) = try await session.data(for: request)
                    return .status((response as? HTTPURLResponse)?.statusCode ?? 0)
                } catch let error as URLError {
                    return .urlError(error.code.rawValue)
                }
            }
        } catch {
            return .failed("\(error)")
        }
    }

    static func fetch(_ session: URLSession, _ url: String) async -> Outcome {
        await fetch(session, URLRequest(url: URL(string: url)!))
    }

    /// Connects with SwiftNIO and closes again; `.failed` with the reason otherwise.
    static func nioConnect(host: String, port: Int) async -> Outcome {
        do {
            return try await withTimeout("a SwiftNIO connection to \(host):\(port)") {
                let channel = try await ClientBootstrap(group: airgapTestEventLoops)
                    .connectTimeout(.seconds(Int64(connectionTimeout)))
                    .connect(host: host, port: port)
                    .get()
                try await channel.close()
                return .connected
            }
        } catch {
            return .failed("\(error)")
        }
    }
}
