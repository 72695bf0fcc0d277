// The core's public types (MockResponse, Host, Path, Headers, QueryMatching, UnmockedPolicy, …)
// are part of the HTTPMock API: `import HTTPMock` is all a test needs.
@_exported import AirlockCore

// On Linux, URLSession, URLRequest and HTTPURLResponse live in FoundationNetworking: re-exported
// so that `import HTTPMock` (with Foundation) compiles the same code as on Apple platforms.
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
