import Testing

/// This package's one guarded suite has no other guarded tests to be kept apart from (in
/// Tests/AirgapTests, whose URLProtocolGuardTests.swift this package links, `ScopeGate` does that
/// beside the target's other suites): the trait the linked file lists does nothing here.
struct ScopeGate: TestTrait, SuiteTrait {
    var isRecursive: Bool { true }
}

extension Trait where Self == ScopeGate {
    /// Nothing to wait for in this package.
    static var aloneAmongGuardedTests: Self { Self() }
}
