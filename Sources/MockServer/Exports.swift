// The core types (MockResponse, StubFile, Host, Path, RequestMatcher, …) are part of the
// MockServer API: `import MockServer` is all a server user needs.
@_exported import AirlockCore
