import Foundation
import HTTPMock
import HTTPLogging
import Logging
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// A sample that shows its imports is compiled in a file with exactly those imports, so that it
// compiles as a reader's own file would (CodeBlockTests checks this). Compiled, not run.

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
