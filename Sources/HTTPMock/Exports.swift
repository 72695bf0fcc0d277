// The core's public types (MockResponse, Host, Path, Headers, QueryMatching, UnmockedPolicy, …)
// and the formats' (StubFile, Cassette, HTTPArchive, WireMockMappings) are part of the HTTPMock
// API: `import HTTPMock` brings them. Foundation is not re-exported: a test imports it (and, on
// Linux, FoundationNetworking for URLSession) as any Swift file does.
@_exported import AirlockCassettes
@_exported import AirlockCore
@_exported import AirlockStubFiles
@_exported import AirlockWireMock
