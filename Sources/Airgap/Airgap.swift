import AirlockBase
import CAirgap
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Detects and fails any test that attempts real network access.
///
/// Airgap is a process-wide guard with two layers on Linux:
///
/// - **URLSession layer**: ``AirgapURLProtocol``, registered with `URLProtocol.registerClass`
///   ahead of the built-in HTTP protocol (which reaches `URLSession.shared`) when Airgap loads on
///   Linux, or at the first ``activate()`` elsewhere, and registered from then on (inactive, it
///   declines every request); ``protect(_:)`` adds it to any configuration. It reports the
///   method, URL and `Content-Type` and answers with ``errorCode`` after ``responseDelay``.
/// - **Socket layer**: hooks on every C-library route to the network (`connect`, sends with an
///   address, raw sockets, every resolver entry point, `syscall`) that catch every other client
///   in the process (`URLSession(configuration: .default)`, `Data(contentsOf:)`, SwiftNIO,
///   AsyncHTTPClient, raw sockets). In both modes a blocked `connect` fails with `ECONNREFUSED`
///   and a blocked lookup with `EAI_NONAME`, before any packet leaves; the mode only changes how
///   the violation is reported. Processes started while the guard is active inherit it through
///   the `AirgapPreload` library. <doc:HowAirgapWorks> lists what is blocked, and
///   <doc:HowAirgapWorks#What-is-not-blocked> the routes the guard cannot see, with what to do
///   about each.
///
/// Where there is no socket layer — Apple platforms, or a Linux build with
/// `-Xswiftc -DAIRGAP_NO_SOCKET_LAYER -Xcc -DAIRGAP_NO_SOCKET_LAYER` — the URLSession layer is the
/// whole guard. The Linux builds, with and without the socket layer, are built and tested; the
/// Apple one is unbuilt and unverified (<doc:HowAirgapWorks#Where-Airgap-builds-and-what-is-verified>).
///
/// ```swift
/// Airgap.allowedHosts = ["localhost", "127.0.0.1"]
/// Airgap.activate()
/// defer { Airgap.deactivate() }
/// ```
///
/// > Warning: Airgap replaces `connect` and `getaddrinfo` for the whole process that links it.
/// > Add it to test targets only, never to an app or server target.
public enum Airgap {
    /// The guard's state. Process-wide by necessity: the hooks and the `URLProtocol`
    /// registration it drives are process-wide.
    static let state = Locked(GuardState())

    /// How violations are reported (both modes block). Defaults to ``Mode/fail``.
    ///
    /// Inside an `.airgapped` or ``scoped(mode:allowedHosts:sourceLocation:_:)`` scope, the
    /// scope's mode: setting it there changes that scope's until it ends (as every setting below).
    public static var mode: Mode {
        get { setting({ $0.mode }, { $0.mode }) }
        set {
            if !setInScope({ $0.mode = newValue }) { state.withLock { $0.mode = newValue } }
            synchronise()
        }
    }

    /// Where ``writeReport()`` writes: JSON when the path ends in `.json`, text otherwise.
    /// `nil` (the default) writes nothing.
    public static var reportPath: String? {
        get { setting({ $0.reportPath }, { $0.reportPath }) }
        set {
            if !setInScope({ $0.reportPath = .some(newValue) }) { state.withLock { $0.reportPath = newValue } }
        }
    }

    /// The violations collected since the last ``clearViolations()``, oldest first, including
    /// those that child processes (and `fork()`ed copies of this process) reported so far.
    ///
    /// A violation of this process is here before the blocked call returns to its caller (on
    /// every route: the URLSession layer and the socket layer); a child's is read from its log
    /// when this property (or a scope's end, ``deactivate()``, ``writeReport()``) is read.
    ///
    /// Inside an `.airgapped` or ``scoped(mode:allowedHosts:sourceLocation:_:)`` scope, the
    /// violations of that scope: those it will record as issues when it ends. Scopes run in
    /// parallel, and each test sees only its own.
    public static var violations: [Violation] {
        ViolationPipeline.settle()
        if let scope = GuardScope.innermostOpen { return scope.sink.violations }
        return state.withLock { $0.violations }
    }

    /// Hosts that pass through the guard while it is active.
    ///
    /// Accepts IP literals (`"127.0.0.1"`, `"::1"`), CIDR ranges (`"127.0.0.0/8"`) and host
    /// patterns, one language for every layer (the URLSession guard, the socket hooks of this
    /// process, its forked copies and the child processes it starts):
    ///
    /// | Pattern | Matches | Does not match |
    /// |---|---|---|
    /// | `api.example.com` | `api.example.com`, `API.Example.com.` | `example.com` |
    /// | `*.example.com` | `example.com`, `api.example.com`, `a.b.example.com` | `example.org` |
    /// | `**.example.com` | the same as `*.example.com` | |
    /// | `api.*.example.com` | `api.eu.example.com` | `api.example.com`, `api.a.b.example.com` |
    /// | `api-*.example.com` | `api-.example.com`, `api-v2.example.com` | `api.example.com` |
    /// | `*` | every name of one label (`localhost`, `db`) | `api.example.com` |
    /// | `**` | every name | |
    ///
    /// `**` is zero or more labels, `*` exactly one, a `*` inside a label any run of characters
    /// there; a leading `*.` reads as `**.`. Letters compare case-insensitively; a name's
    /// trailing `.` is ignored; ports are not part of a host (`"localhost:8080"` never matches).
    /// An entry that is not ASCII, contains a comma, `/`, white space or an empty label, or has
    /// `**` inside a label is refused with a message on standard error that says how to write it.
    ///
    /// `"localhost"` also allows its loopback addresses, 127.0.0.1 and ::1 (RFC 6761), because
    /// clients such as libcurl resolve it themselves. Nothing is allowed by default. Allowed hosts
    /// persist across ``activate()`` / ``deactivate()``: they are configuration, not per-test
    /// state.
    ///
    /// Inside an `.airgapped` or ``scoped(mode:allowedHosts:sourceLocation:_:)`` scope it reads the
    /// process-wide hosts and those the scope (and any enclosing scope) adds; setting it there
    /// replaces what the scope adds, until the scope ends.
    ///
    /// The addresses an allowed name resolves to are allowed (for every scope) while that
    /// allowance lasts: any change of the process-wide `allowedHosts`, every ``activate()`` and
    /// ``deactivate()``, and the end of the last open scope close them again.
    public static var allowedHosts: Set<String> {
        get {
            if let scope = GuardScope.innermostOpen { return scope.allowedHosts }
            return state.withLock { $0.allowedHosts }
        }
        set {
            let rules = HostRules(newValue)
            for (entry, problem) in rules.rejected {
                printToStandardError("Airgap: ignoring allowed host \"\(entry)\": \(problem). Allowed hosts are host patterns (\"localhost\", \"*.example.com\", \"api-*.example.com\"), IP addresses (\"127.0.0.1\") or CIDR ranges (\"10.0.0.0/8\"), without port or scheme.")
            }
            if setInScope({ $0.hosts = newValue; $0.rules = rules }) {
                synchronise()
                return
            }
            state.withLock { state in
                state.allowedHosts = newValue
                state.hostRules = rules
                rules.installAddressRules()
            }
            synchronise()
        }
    }

    /// `URLProtocol` classes that Airgap yields to: when one of them answers `true` from
    /// `canInit(with:)`, the guard lets it handle the request (mocked requests pass, unmocked
    /// ones are still blocked).
    ///
    /// ```swift
    /// Airgap.passthroughProtocols = [MockingURLProtocol.self]
    /// ```
    public static var passthroughProtocols: [URLProtocol.Type] {
        get { setting({ $0.passthroughProtocols }, { $0.passthroughProtocols }) }
        set {
            if !setInScope({ $0.passthroughProtocols = newValue }) { state.withLock { $0.passthroughProtocols = newValue } }
        }
    }

    /// Called with a message for each violation outside an `.airgapped` scope.
    ///
    /// The built-in handler records an `Issue` when a Swift Testing test is running on the
    /// reporting task, calls `XCTFail` while an ``AirgapTestCase`` or ``AirgapObserver`` test
    /// runs, and otherwise prints the message to standard error. Inside `.airgapped` scopes the
    /// trait manages reporting; use ``violationReporter`` for your own structured reporting.
    ///
    /// Like the reporter, it runs on the thread that made the blocked call, before that call
    /// returns to its caller.
    public static var violationHandler: @Sendable (String) -> Void {
        get { setting({ $0.violationHandler }, { $0.violationHandler }) ?? DefaultReporting.handle }
        set {
            if !setInScope({ $0.violationHandler = .some(newValue) }) { state.withLock { $0.violationHandler = newValue } }
        }
    }

    /// Called with every ``Violation`` as soon as it is detected, in addition to
    /// ``violationHandler`` (also inside `.airgapped` scopes). `nil` by default.
    ///
    /// It runs on the thread that made the blocked call (a URLSession, libcurl or event-loop
    /// thread, or the test's own), before that call returns to its caller, so a test that counts
    /// violations right after a request returns sees this one. The violation's
    /// ``Violation/callStack`` is symbolicated only if the reporter reads it. Violations of child
    /// processes reach it when the parent reads their log (``violations``, the end of a scope,
    /// ``deactivate()``). Network calls made by the reporter itself from a socket-layer hook are
    /// not guarded (the hook is re-entered with the guard off).
    ///
    /// ```swift
    /// Airgap.violationReporter = { violation in
    ///     print("blocked \(violation.url) in \(violation.testName)")
    /// }
    /// ```
    ///
    /// Set inside an `.airgapped` or ``scoped(mode:allowedHosts:sourceLocation:_:)`` scope, it
    /// receives that scope's violations until the scope ends (and the process-wide one does not).
    public static var violationReporter: (@Sendable (Violation) -> Void)? {
        get { setting({ $0.violationReporter }, { $0.violationReporter }) }
        set {
            if !setInScope({ $0.violationReporter = .some(newValue) }) { state.withLock { $0.violationReporter = newValue } }
        }
    }

    /// The `URLError` code that the URLSession layer delivers to blocked requests.
    /// Defaults to `NSURLErrorNotConnectedToInternet` (-1009).
    ///
    /// Only requests that layer sees get it: those of `URLSession.shared` and of sessions whose
    /// configuration went through ``protect(_:)``. A `URLSession(configuration: .default)` or
    /// `.ephemeral` session never asks the layer, so its blocked requests are stopped by the socket
    /// layer and fail with `-1003` (`cannotFindHost`) or `-1004` (`cannotConnectToHost`).
    public static var errorCode: Int {
        get { setting({ $0.errorCode }, { $0.errorCode }) }
        set {
            if !setInScope({ $0.errorCode = newValue }) { state.withLock { $0.errorCode = newValue } }
        }
    }

    /// Seconds the URLSession layer waits (on a timer) before delivering ``errorCode``.
    /// Defaults to 0.
    public static var responseDelay: TimeInterval {
        get { setting({ $0.responseDelay }, { $0.responseDelay }) }
        set {
            if !setInScope({ $0.responseDelay = newValue }) { state.withLock { $0.responseDelay = newValue } }
        }
    }

    /// Whether the guard is active (between ``activate()`` and ``deactivate()``).
    /// Stays `true` after ``allowNetworkAccess()``.
    ///
    /// Inside an `.airgapped` or ``scoped(mode:allowedHosts:sourceLocation:_:)`` scope: whether
    /// the scope's guard is on (`true` unless ``deactivate()`` was called in it).
    public static var isActive: Bool {
        if let scope = GuardScope.innermostOpen { return scope.overrides.withLock { $0.isActive } }
        return state.withLock { $0.isActive }
    }

    /// Whether Airgap reports to an XCTest test. Set by ``AirgapObserver`` and
    /// ``AirgapTestCase``. On Linux, where there is no `XCTExpectFailure`, warn-mode violations
    /// in an XCTest context print one warning line each instead of calling the handler.
    public static var inXCTestContext: Bool {
        get { state.withLock { $0.inXCTestContext } }
        set { state.withLock { $0.inXCTestContext = newValue } }
    }

    /// Activates the guard: registers ``AirgapURLProtocol`` and turns the socket hooks on.
    ///
    /// Idempotent. Resets ``allowNetworkAccess()`` and forgets addresses resolved under the
    /// previous activation. Inside an `.airgapped` or ``scoped(mode:allowedHosts:sourceLocation:_:)``
    /// scope it turns that scope's guard back on (after ``deactivate()`` or
    /// ``allowNetworkAccess()`` there) and leaves the process-wide guard as it is.
    public static func activate() {
        if setInScope({ $0.isActive = true; $0.isAllowed = false }) {
            synchronise()
            return
        }
        SocketGuard.install()
        #if canImport(Darwin) && canImport(ObjectiveC)
        // Unbuilt and unverified (no Apple platform builds here): see DarwinInjection.
        DarwinInjection.install()
        #endif
        ChildProcesses.prepare()
        state.withLock { state in
            state.isActive = true
            state.isAllowed = false
        }
        airgap_clear_resolved()
        synchronise()
    }

    /// Deactivates the guard: ``AirgapURLProtocol`` declines every request and the socket hooks
    /// are off. Collected ``violations`` are kept.
    ///
    /// The protocol stays registered: `URLSession.shared` copies the registered classes when it is
    /// first used, so a shared session first used between two activations still has the guard.
    ///
    /// Inside an `.airgapped` or ``scoped(mode:allowedHosts:sourceLocation:_:)`` scope it turns off
    /// that scope's guard only, until ``activate()`` or the scope's end.
    public static func deactivate() {
        if setInScope({ $0.isActive = false }) {
            synchronise()
            ViolationPipeline.settle()
            return
        }
        state.withLock { $0.isActive = false }
        synchronise()
        // What child processes reported while the guard was on is delivered before this returns.
        ViolationPipeline.settle()
        airgap_clear_resolved()
    }

    /// Lets all network access through until the next ``activate()``.
    ///
    /// Inside an `.airgapped` or ``scoped(mode:allowedHosts:sourceLocation:_:)`` scope it lets
    /// that scope's network access through (its test's, and connections no test owns while the
    /// scope is open), until ``activate()`` or the scope's end.
    ///
    /// Prefer `withNetworkAccessAllowed(_:)`, which restores the previous state.
    public static func allowNetworkAccess() {
        if !setInScope({ $0.isAllowed = true }) { state.withLock { $0.isAllowed = true } }
        synchronise()
    }

    /// Removes all collected ``violations``. Inside an `.airgapped` or ``scoped(mode:allowedHosts:sourceLocation:_:)``
    /// scope it removes that scope's only: the violations that the scope would record when it ends.
    public static func clearViolations() {
        ViolationPipeline.settle()
        if let scope = GuardScope.innermostOpen {
            scope.sink.removeAll()
            return
        }
        state.withLock { $0.violations.removeAll() }
    }

    /// A setting as it applies here: the innermost open scope's (or an enclosing scope's), else
    /// the process-wide one.
    static func setting<T>(_ scoped: (GuardScope.Overrides) -> T?, _ processWide: (GuardState) -> T) -> T {
        if let scope = GuardScope.innermostOpen {
            return scope.inherited(scoped, processWide: { state.withLock { processWide($0) } })
        }
        return state.withLock { processWide($0) }
    }

    /// Changes a setting of the innermost open scope of the current task; `false` outside every
    /// scope (the caller then changes the process-wide setting).
    static func setInScope(_ change: (inout GuardScope.Overrides) -> Void) -> Bool {
        guard let scope = GuardScope.innermostOpen else { return false }
        scope.overrides.withLock { change(&$0) }
        return true
    }

    /// Registers ``AirgapURLProtocol`` ahead of the built-in HTTP protocol, once per process.
    ///
    /// swift-corelibs-foundation appends registered classes, and registers its built-in ones when
    /// the first session of the process is created. `URLSession.shared` asks the registered
    /// classes in order, so after any earlier session the guard would come after
    /// `_HTTPURLProtocol` and never be asked. The built-in classes (those of
    /// `URLSessionConfiguration.default`) are taken out and registered again after the guard.
    ///
    /// The guard is never unregistered. `URLSession.shared` copies the registered classes when it
    /// is first used (unless none are registered yet, when it asks the live list), so a
    /// registration that came and went would leave a shared session first used in between
    /// without the guard for the rest of the process. Inactive, the guard declines every request.
    static func registerURLProtocol() {
        _ = registration
    }

    private static let registration: Void = {
        let builtIn = (URLSessionConfiguration.default.protocolClasses ?? []).filter { $0 != AirgapURLProtocol.self }
        builtIn.forEach { URLProtocol.unregisterClass($0) }
        _ = URLProtocol.registerClass(AirgapURLProtocol.self)
        builtIn.forEach { _ = URLProtocol.registerClass($0) }
    }()

    /// Serialises ``synchronise()`` so registration changes apply in order. Never taken by the
    /// URLProtocol queue, so registering under it cannot deadlock against `canInit(with:)`.
    private static let synchronisation = Locked()

    /// Applies the state to the two layers: the `URLProtocol` registration (once) and the C hooks.
    ///
    /// The hooks enforce while the process-wide guard does or any scope is open; they ask the
    /// Swift side about each call the process-wide rules deny (``SocketGuard``). Child processes
    /// belong to no test: they get the process-wide hosts and those of every open scope, fail mode
    /// when the process or any open scope fails (fail closed), and no guard while an open scope
    /// lets everything through.
    static func synchronise() {
        synchronisation.withLock {
            let (active, processEnforcing, processMode, processHosts, open) = state.withLock { state in
                (state.isActive, state.isActive && !state.isAllowed, state.mode, state.hostRules.accepted, state.openScopes)
            }
            let enforcing = processEnforcing || !open.isEmpty
            let fails = open.isEmpty ? processMode == .fail : (processEnforcing && processMode == .fail) || open.contains { $0.mode == .fail }
            var hosts = processHosts
            for scope in open {
                var current: GuardScope? = scope
                while let each = current {
                    for host in each.overrides.withLock({ $0.rules.accepted }) where !hosts.contains(host) { hosts.append(host) }
                    current = each.parent
                }
            }
            let childrenGuarded = enforcing && !open.contains { $0.allowsEverything }
            if active || !open.isEmpty { registerURLProtocol() }
            airgap_set_fail_mode(fails ? 1 : 0)
            ChildProcesses.applyEnvironment(enforcing: childrenGuarded, mode: fails ? .fail : .warn, allowedHosts: hosts)
            airgap_set_enforcing(enforcing ? 1 : 0)
        }
    }
}
