@_spi(AirlockTransport) import AirlockCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ExchangeFailure {
    /// The `URLError` code a URLSession client sees for this failure.
    package var urlErrorCode: URLError.Code {
        switch kind {
        case .fileMissing: .fileDoesNotExist
        case .fileUnreadable: .noPermissionsToReadFile
        case .responseUnavailable: .cannotParseResponse
        }
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
