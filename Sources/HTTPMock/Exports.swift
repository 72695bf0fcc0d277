// The core's public types (MockResponse, Host, Path, Headers, QueryMatching, UnmockedPolicy, …)
// are part of the HTTPMock API: `import HTTPMock` is all a test needs.
@_exported import AirlockCore
