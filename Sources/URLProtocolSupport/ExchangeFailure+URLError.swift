@_spi(AirlockTransport) import AirlockCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ExchangeFailure {
    /// The `URLError` code a URLSession client sees for this failure.
    package var urlErrorCode: URLError.Code {
        switch self {
        case .fileMissing: .fileDoesNotExist
        case .notAFile, .fileUnreadable: .noPermissionsToReadFile
        case .responseUnservable, .webSocketNeedsServer, .stubError, .notRecorded: .cannotParseResponse
        case .timedOut: .timedOut
        case .replayMiss: .resourceUnavailable
        case .invalidProxyTarget: .badURL
        case .forwardFailed: .cannotConnectToHost
        }
    }

    /// The request was forwarded to the network, which failed it with `error`.
    package static func forwarding(_ request: URLRequest, failedWith error: any Error) -> ExchangeFailure {
        .forwardFailed(target: request.url?.absoluteString ?? "?", error: "\(error)")
    }
}

extension MockResponse.Fault {
    /// What a URLSession client sees for this fault (a URLProtocol has no socket to misbehave on).
    /// - Parameter owner: Who reports it: `HTTPMock`, `AirlockTransport`.
    package func urlError(reportedBy owner: String) -> URLError {
        switch kind {
        case .connectionReset:
            URLError(.networkConnectionLost, message: "\(owner): fault connectionReset — the connection was reset")
        case .emptyResponse:
            URLError(.badServerResponse, message: "\(owner): fault emptyResponse — the server closed the connection without a response")
        case .malformedChunkedBody:
            URLError(.cannotParseResponse, message: "\(owner): fault malformedChunkedBody — the chunked body could not be parsed")
        case .randomBytesThenClose:
            URLError(.badServerResponse, message: "\(owner): fault randomBytesThenClose — the server sent bytes that are not HTTP")
        }
    }
}
