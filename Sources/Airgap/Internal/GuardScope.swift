import AirlockBase
import CAirgap
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One `.airgapped` / `Airgap.scoped` scope: its test, its rules and settings, and the violations
/// it records when it ends. It travels with the test's task as a task-local value (``current``),
/// so the guard decides a call made on the test's own thread (or where the test resumed a
/// `URLSession` task) with this scope's rules, and attributes the violation to its test. Nested
/// scopes chain to the enclosing one.
///
/// Settings changed inside a scope (mode, allowed hosts, handler, reporter, error code, response
/// delay, passthrough protocols, report path, `activate()` / `deactivate()` /
/// `allowNetworkAccess()`) are the scope's own: they end with it and never reach other tests.
final class GuardScope: Sendable {
    /// The innermost scope of the current task, or `nil`. A scope that has ended (seen by a task
    /// that outlived it) counts as absent: see ``innermostOpen``.
    @TaskLocal static var current: GuardScope?

    /// The innermost scope of the current task that is still open.
    static var innermostOpen: GuardScope? {
        var scope = current
        while let candidate = scope, !candidate.isOpen { scope = candidate.parent }
        return scope
    }

    /// What a scope overrides; `nil` inherits from the enclosing scope, then from the process.
    struct Overrides: Sendable {
        var mode: Airgap.Mode?
        /// The hosts this scope adds to those of the enclosing scopes and the process.
        var hosts: Set<String> = []
        var rules = HostRules([])
        var violationHandler: (@Sendable (String) -> Void)??
        var violationReporter: (@Sendable (Violation) -> Void)??
        var errorCode: Int?
        var responseDelay: TimeInterval?
        var passthroughProtocols: [URLProtocol.Type]?
        var reportPath: String??
        /// `deactivate()` inside the scope turns its guard off until `activate()`.
        var isActive = true
        /// `allowNetworkAccess()` / `withNetworkAccessAllowed` inside the scope.
        var isAllowed = false
        var isOpen = true
    }

    let parent: GuardScope?
    let testName: String
    /// The violations the scope records as issues when it ends (what ``Airgap/violations`` lists
    /// inside it).
    let sink = ScopeSink()
    let overrides: Locked<Overrides>

    init(testName: String, mode: Airgap.Mode?, allowedHosts: Set<String>, parent: GuardScope?) {
        self.parent = parent
        self.testName = testName
        var overrides = Overrides()
        overrides.mode = mode
        overrides.hosts = allowedHosts
        overrides.rules = HostRules(allowedHosts)
        self.overrides = Locked(overrides)
    }

    var isOpen: Bool { overrides.withLock { $0.isOpen } }

    func close() {
        overrides.withLock { $0.isOpen = false }
    }

    /// A setting: this scope's override, else the enclosing scope's, else `processWide`.
    func inherited<T>(_ value: (Overrides) -> T?, processWide: () -> T) -> T {
        var scope: GuardScope? = self
        while let current = scope {
            if let found = current.overrides.withLock({ value($0) }) { return found }
            scope = current.parent
        }
        return processWide()
    }

    var mode: Airgap.Mode {
        inherited({ $0.mode }, processWide: { Airgap.state.withLock { $0.mode } })
    }

    /// Whether the scope lets everything through (`deactivate()` or `allowNetworkAccess()` in it).
    var allowsEverything: Bool {
        overrides.withLock { !$0.isActive || $0.isAllowed }
    }

    /// The hosts allowed here: the process's and those every scope of the chain adds.
    var allowedHosts: Set<String> {
        var hosts = Airgap.state.withLock { $0.allowedHosts }
        var scope: GuardScope? = self
        while let current = scope {
            hosts.formUnion(current.overrides.withLock { $0.hosts })
            scope = current.parent
        }
        return hosts
    }

    /// Whether `check` accepts the rules of this scope or of an enclosing one (the process's
    /// rules are checked by the caller).
    func chainAllows(_ check: (HostRules) -> Bool) -> Bool {
        var scope: GuardScope? = self
        while let current = scope {
            if check(current.overrides.withLock({ $0.rules })) { return true }
            scope = current.parent
        }
        return false
    }
}

/// What the guard does with one call, decided on the thread that made it.
enum Verdict {
    case allow
    /// Block it and report it through `delivery`.
    case block(ViolationPipeline.Delivery)
}

extension Airgap {
    /// Decides a call made now on this thread. `processAllows` and `scopeAllows` say whether the
    /// process-wide rules and a scope's chain of rules allow its destination.
    ///
    /// - On a task inside a scope: that scope's rules and settings decide, and a violation is the
    ///   scope's.
    /// - On a Swift Testing test's task outside any scope: the process-wide guard decides
    ///   (`activate()`, whole-run mode), and reports through the handler.
    /// - On a thread no test owns (libcurl's, an event loop's): allowed when the process-wide
    ///   rules or any open scope allow it; a blocked call is recorded by every open scope.
    static func verdict(processAllows: Bool, scopeAllows: (GuardScope) -> Bool) -> Verdict {
        if let scope = GuardScope.innermostOpen {
            if scope.allowsEverything || processAllows || scopeAllows(scope) { return .allow }
            return .block(.scopes([scope]))
        }
        let (processEnforcing, open) = state.withLock { ($0.isActive && !$0.isAllowed, $0.openScopes) }
        if DefaultReporting.isInSwiftTest {
            return processEnforcing && !processAllows ? .block(ViolationPipeline.handlerDelivery()) : .allow
        }
        if processAllows || (processEnforcing == false && open.isEmpty) { return .allow }
        if open.contains(where: { $0.allowsEverything || scopeAllows($0) }) { return .allow }
        let leaves = open.filter { scope in !open.contains { $0.parent === scope } }
        return .block(leaves.isEmpty ? ViolationPipeline.handlerDelivery() : .scopes(leaves))
    }
}
