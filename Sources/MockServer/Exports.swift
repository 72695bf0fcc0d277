// The core types (MockResponse, Host, Path, RequestMatcher, …) and the formats' (StubFile,
// Cassette, HTTPArchive, WireMockMappings, WireMockXML) are part of the MockServer API: `import MockServer` is
// all a server user needs.
@_exported import AirlockCassettes
@_exported import AirlockCore
@_exported import AirlockStubFiles
@_exported import AirlockWireMock
// WireMock's XML matchers (`WireMockXML`), which every server installs.
@_exported import AirlockWireMockXML
