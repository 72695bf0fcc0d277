// The core's public types (MockResponse, Host, Path, Headers, QueryMatching, UnmockedPolicy, …)
// are part of the HTTPMock API: `import HTTPMock` is all a test needs.
@_exported import AirlockCore

// Foundation (URL, Data, JSONDecoder…) and, on Linux, FoundationNetworking (URLSession, URLRequest,
// HTTPURLResponse): re-exported so that `import HTTPMock` alone compiles a test, on every platform.
@_exported import Foundation

#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
