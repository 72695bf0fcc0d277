import Foundation
import HTTPLogging
import HTTPMock
import Logging

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The Swift samples of HTTPLogging's catalog and of the README, verbatim; compiled, not run.

// README.md: HTTPLogging quick start.
func loggingQuickStart() {
    let httpLog = HTTPLogger(logger: Logger(label: "app.network"))
    let session = httpLog.makeURLSession()   // every exchange logged at info, and kept in httpLog.requests
    _ = session
}

// HTTPLogging.md.
func loggingRealTraffic() {
    let httpLog = HTTPLogger(logger: Logger(label: "app.network"))
    let configuration = URLSessionConfiguration.default
    httpLog.install(in: configuration)             // or: let session = httpLog.makeURLSession()
    let session = URLSession(configuration: configuration)
    _ = session
}
