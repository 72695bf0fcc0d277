// The core's public types (MockResponse, Host, Path, Headers, QueryMatching, UnmockedPolicy, …)
// are part of the HTTPMock API: `import HTTPMock` brings them. Foundation is not re-exported: a
// test imports it (and, on Linux, FoundationNetworking for URLSession) as any Swift file does.
@_exported import AirlockCore
