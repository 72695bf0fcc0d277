// AirlockBenchmarks: what a mocked request costs, side by side with the least a URLProtocol can do.
//
//     swift run -c release AirlockBenchmarks [--requests N]
//
// Prints one table: registration time and peak memory at 100,000 stubs; per-request median and
// p99 through a real URLSession for HTTPMock and for a minimal dictionary-lookup URLProtocol; and
// per-match time in the core alone, with exact and wildcard stubs at 1, 1,000 and 100,000; and
// matched requests served beside 10,000 unmatched ones at 100,000 stubs (`--only unmatched`).
// `--only json` instead reads and writes a 1 MB JSON document (JSONParsing.swift).
// `--json PATH` also writes every figure to PATH, keyed by row (Benchmarks/targets.py reads it):
// nanoseconds, megabytes and requests per second, e.g. {"session.exact.1000": {"median": …,
// "p99": …, "minimalMedian": …, "minimalP99": …}}.
import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import Foundation
import HTTPMock
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

enum Kind: String, CaseIterable {
    case exact
    case wildcard

    /// The stub pattern for index `i`: exact paths, or wildcard hosts and paths (every tenth a `**`).
    func registration(_ i: Int) -> Registration {
        switch self {
        case .exact:
            return Registration(host: "api.example.com", path: "/v1/items/\(i)", responses: [.plaintext("item \(i)", lifetime: .eternal)])
        case .wildcard:
            let path = i % 10 == 0 ? "/v1/items\(i)/**" : "/v1/items\(i)/*"
            return Registration(host: "*.example.com", path: path, responses: [.plaintext("item \(i)", lifetime: .eternal)])
        }
    }

    /// A concrete path that stub `i` answers.
    func requestPath(_ i: Int) -> String {
        switch self {
        case .exact: "/v1/items/\(i)"
        case .wildcard: "/v1/items\(i)/detail"
        }
    }
}

/// A deterministic spread of stub indexes to request.
func indexes(count: Int, stubs: Int) -> [Int] {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    return (0..<count).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(stubs))
    }
}

let arguments = CommandLine.arguments
let requestCount = arguments.firstIndex(of: "--requests").flatMap { Int(arguments[$0 + 1]) } ?? 3_000
/// `--only register|session|core|unmatched|json` runs one part, for profiling.
let only = arguments.firstIndex(of: "--only").map { arguments[$0 + 1] }
func runs(_ part: String) -> Bool { only == nil || only == part }
/// `--unmatched N`: how many unmatched requests the load thread sends per round (10,000).
let unmatchedCount = arguments.firstIndex(of: "--unmatched").flatMap { Int(arguments[$0 + 1]) } ?? 10_000
let sizes = ProcessInfo.processInfo.environment["BENCH_SIZES"].map { $0.split(separator: ",").compactMap { Int($0) } } ?? [1, 1_000, 100_000]
let clock = ContinuousClock()
var rows: [[String]] = []
/// What `--json PATH` writes: each row's figures by name.
let jsonPath = arguments.firstIndex(of: "--json").map { arguments[$0 + 1] }
var figures: [String: [String: Double]] = [:]

if only == "json" {
    try printJSONBenchmark()
    exit(0)
}

// MARK: Registration (first, so the process's peak memory reflects it)

if runs("register") {
    let baseline = Memory.resident
    let mock = HTTPMock()
    let start = clock.now
    for i in 0..<100_000 {
        let stub = Kind.wildcard.registration(i)
        mock.addResponses(forPath: stub.path, host: stub.host, responses: stub.responses)
    }
    let elapsed = clock.now - start
    let peak = Memory.peak - baseline
    rows.append(["register 100,000 wildcard (addResponses)", "-", formatNanos(nanoseconds(elapsed)), "+\(peak / 1_048_576) MB peak RSS", "", ""])
    figures["register.addResponses"] = ["time": nanoseconds(elapsed), "peakMB": Double(peak) / 1_048_576]
    withExtendedLifetime(mock) {}
}

if runs("register") {
    let mock = HTTPMock()
    let start = clock.now
    mock.registerResponses {
        Host("*.example.com") {
            for i in 0..<100_000 {
                Path("/v1/items\(i)/*") { MockResponse.plaintext("item \(i)", lifetime: .eternal) }
            }
        }
    }
    let elapsed = clock.now - start
    rows.append(["register 100,000 wildcard (DSL)", "-", formatNanos(nanoseconds(elapsed)), "", "", ""])
    figures["register.dsl"] = ["time": nanoseconds(elapsed)]
}

/// A table row: HTTPMock's median and p99 beside the minimal implementation's, and their ratios.
func comparisonRow(_ label: String, size: Int, ours: Samples, minimal: Samples) -> [String] {
    [
        label, size.formatted(),
        formatNanos(ours.median) + " / " + formatNanos(ours.p99),
        formatNanos(minimal.median) + " / " + formatNanos(minimal.p99),
        String(format: "%.2f", ours.median / minimal.median),
        String(format: "%.2f", ours.p99 / minimal.p99),
    ]
}

/// The same row's figures, for `--json`.
func comparisonFigures(ours: Samples, minimal: Samples) -> [String: Double] {
    ["median": ours.median, "p99": ours.p99, "minimalMedian": minimal.median, "minimalP99": minimal.p99]
}

// MARK: Through a real URLSession

func fetch(_ session: URLSession, _ path: String) async throws -> Duration {
    let request = URLRequest(url: URL(string: "https://api.example.com\(path)")!)
    let start = clock.now
    let (data, response) = try await session.data(for: request)
    let elapsed = clock.now - start
    guard (response as? HTTPURLResponse)?.statusCode == 200, !data.isEmpty else {
        fatalError("benchmark request for \(path) was not answered from a stub")
    }
    return elapsed
}

/// `--journal on|off` measures the URLSession rows with the request journal on (as HTTPMock comes)
/// or off (`journalCapacity = .off`); both by default.
let journalSettings = arguments.firstIndex(of: "--journal").map { [arguments[$0 + 1] == "on"] } ?? [true, false]

for kind in Kind.allCases where runs("session") {
    for size in sizes {
        for journal in journalSettings {
            let mock = HTTPMock()
            if !journal { mock.journalCapacity = .off }
            mock.registry.register((0..<size).map(kind.registration))
            MinimalProtocol.bodies.withLock { bodies in
                bodies = [:]
                for i in 0..<size { bodies[kind.requestPath(i)] = Data("item \(i)".utf8) }
            }
            let minimal = MinimalProtocol.makeSession()
            let picks = indexes(count: requestCount, stubs: size)
            for i in picks.prefix(300) {
                _ = try await fetch(mock.urlSession, kind.requestPath(i))
                _ = try await fetch(minimal, kind.requestPath(i))
            }
            var mocked = Samples()
            var bare = Samples()
            // Interleaved, each going first in turn, so that drift in the machine's speed and the
            // cost of going first hit both alike.
            for (n, i) in picks.enumerated() {
                if n.isMultiple(of: 2) {
                    mocked.append(try await fetch(mock.urlSession, kind.requestPath(i)))
                    bare.append(try await fetch(minimal, kind.requestPath(i)))
                } else {
                    bare.append(try await fetch(minimal, kind.requestPath(i)))
                    mocked.append(try await fetch(mock.urlSession, kind.requestPath(i)))
                }
            }
            minimal.invalidateAndCancel()
            rows.append(comparisonRow("URLSession GET, \(kind.rawValue)\(journal ? "" : ", journal off")", size: size, ours: mocked, minimal: bare))
            figures["session.\(kind.rawValue).\(size)\(journal ? "" : ".journalOff")"] = comparisonFigures(ours: mocked, minimal: bare)
        }
    }
}

// MARK: The core alone

for kind in Kind.allCases where runs("core") {
    for size in sizes {
        let registry = MockRegistry(snippetStyle: .swift)
        registry.register((0..<size).map(kind.registration))
        var dictionary: [String: MockResponse] = [:]
        for i in 0..<size { dictionary[kind.requestPath(i)] = .plaintext("item \(i)") }
        let requests = indexes(count: 2_000, stubs: size).map { i in
            IncomingRequest(method: "GET", url: "", host: "api.example.com", path: kind.requestPath(i), queryItems: [])
        }
        var matched = Samples()
        var looked = Samples()
        for round in 0..<(Int(ProcessInfo.processInfo.environment["BENCH_ROUNDS"] ?? "") ?? 20) {
            for request in requests {
                let start = clock.now
                let outcome = registry.resolve(request, for: .urlSession)
                let elapsed = clock.now - start
                guard outcome.stub != nil else { fatalError("core benchmark request \(request.path) did not match") }
                let lookupStart = clock.now
                let found = dictionary[request.path]
                let lookupElapsed = clock.now - lookupStart
                precondition(found != nil)
                if round > 0 {
                    matched.append(elapsed)
                    looked.append(lookupElapsed)
                }
            }
        }
        rows.append(comparisonRow("core match, \(kind.rawValue)", size: size, ours: matched, minimal: looked))
        figures["core.\(kind.rawValue).\(size)"] = comparisonFigures(ours: matched, minimal: looked)
    }
}

// MARK: Unmatched requests beside matched ones

/// Matched requests served on this thread, alone and while another thread sends 10,000 unmatched
/// requests (each answered `404` with the diagnosis, as `airlock serve` answers them) at 100,000
/// wildcard stubs. Phases alternate, alone first, so that drift in the machine's speed hits both.
func unmatchedLoadRows() -> (rows: [[String]], figures: [String: [String: Double]]) {
    let registry = MockRegistry(snippetStyle: .json)
    registry.register((0..<100_000).map(Kind.wildcard.registration))
    let matched = indexes(count: 2_000, stubs: 100_000).map { i in
        IncomingRequest(method: "GET", url: "", host: "api.example.com", path: Kind.wildcard.requestPath(i), queryItems: [])
    }
    // Near the stubs' paths (`/v1/item<i>/detail` against `/v1/items<i>/*`), so that each
    // diagnosis has neighbours to rank.
    let unmatched = indexes(count: unmatchedCount, stubs: 100_000).map { i in
        IncomingRequest(method: "GET", url: "http://api.example.com/v1/item\(i)/detail", host: "api.example.com", path: "/v1/item\(i)/detail", queryItems: [])
    }
    func serve(_ request: IncomingRequest) -> Duration {
        let start = clock.now
        let exchange = registry.resolve(request, for: .urlSession)
        let elapsed = clock.now - start
        guard exchange.stub != nil else { fatalError("benchmark request \(request.path) did not match") }
        return elapsed
    }
    // Warm-up, including one unmatched request: the first one after registering sorts the new
    // stubs into the path indexes, under the lock, once.
    for request in matched { _ = serve(request) }
    let firstStart = clock.now
    _ = registry.resolve(unmatched[0], for: .socket)
    let first = nanoseconds(clock.now - firstStart)

    // The control: the same unmatched load sent to another registry holding the same stubs, so
    // that the CPU, caches and allocator are shared alike and only the lock differs.
    let other = MockRegistry(snippetStyle: .json)
    other.register((0..<100_000).map(Kind.wildcard.registration))
    _ = other.resolve(unmatched[0], for: .socket)

    struct Phase {
        var samples = Samples()
        var time = Duration.zero
        var rate: Double { Double(samples.values.count) / (nanoseconds(time) / 1e9) }
    }
    var alone = Phase()
    var control = Phase()
    var beside = Phase()
    var load = Samples()
    /// Serves matched requests until `target` has answered every unmatched request.
    func phase(_ result: inout Phase, loading target: MockRegistry) -> Samples {
        let done = Locked(false)
        let loadSamples = Locked(Samples())
        let thread = Thread {
            var samples = Samples()
            for request in unmatched {
                let start = clock.now
                let exchange = target.resolve(request, for: .socket)
                samples.append(clock.now - start)
                guard exchange.plannedResponse?.status.code == 404 else { fatalError("an unmatched request was answered") }
            }
            loadSamples.withLock { $0 = samples }
            done.withLock { $0 = true }
        }
        let start = clock.now
        thread.start()
        var next = 0
        while !done.withLock({ $0 }) {
            result.samples.append(serve(matched[next % matched.count]))
            next += 1
        }
        result.time += clock.now - start
        return loadSamples.withLock { $0 }
    }
    for _ in 0..<2 {
        let start = clock.now
        for request in matched + matched {
            alone.samples.append(serve(request))
        }
        alone.time += clock.now - start
        _ = phase(&control, loading: other)
        load.values += phase(&beside, loading: registry).values
    }
    // Throughput shows what percentiles hide: a request blocked behind a diagnosis held under
    // the lock is one slow sample among many, but the thread serves nothing meanwhile.
    func cells(_ samples: Samples) -> String {
        [samples.median, samples.p99, samples.percentile(99.9), samples.percentile(100)].map(formatNanos).joined(separator: " / ")
    }
    func ratio(_ value: Double) -> String { String(format: "%.2f", value) }
    func row(_ label: String, _ phase: Phase, against base: Phase?) -> [String] {
        [label, phase.samples.values.count.formatted(), cells(phase.samples), "\(Int(phase.rate).formatted())/s",
         base.map { ratio(phase.samples.median / $0.samples.median) } ?? "", base.map { ratio(phase.samples.p99 / $0.samples.p99) } ?? "",
         base.map { ratio(phase.rate / $0.rate) } ?? ""]
    }
    var figures: [String: [String: Double]] = ["unmatched.load": ["median": load.median, "p99": load.p99], "unmatched.first": ["time": first]]
    for (key, phase) in [("alone", alone), ("control", control), ("beside", beside)] {
        figures["unmatched.\(key)"] = ["median": phase.samples.median, "p99": phase.samples.p99, "rate": phase.rate]
    }
    return ([
        row("matched, alone", alone, against: nil),
        row("matched, beside the load on another registry (control)", control, against: alone),
        row("matched, beside the load on the same registry", beside, against: control),
        ["unmatched (the load: \(unmatchedCount.formatted()) per round, with diagnosis)", load.values.count.formatted(), cells(load), "", "", "", ""],
        ["first unmatched after registering", "1", formatNanos(first), "", "", "", ""],
    ], figures)
}

// MARK: Table

let header = ["row", "stubs", "HTTPMock median / p99", "minimal median / p99", "ratio median", "ratio p99"]
let widths = (0..<header.count).map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
func line(_ cells: [String]) -> String {
    "| " + cells.enumerated().map { index, cell in index < 2 ? pad(cell, widths[index]) : padLeft(cell, widths[index]) }.joined(separator: " | ") + " |"
}
print("")
print("AirlockBenchmarks: \(requestCount) requests per URLSession row, 38,000 matches per core row; Swift \(swiftVersion), \(ProcessInfo.processInfo.activeProcessorCount) cores")
print(line(header))
print("|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|")
for row in rows { print(line(row)) }

if runs("unmatched") {
    let (loadRows, loadFigures) = unmatchedLoadRows()
    figures.merge(loadFigures) { $1 }
    let loadHeader = ["row (100,000 wildcard stubs)", "requests", "median / p99 / p99.9 / max", "throughput", "ratio median", "ratio p99", "ratio throughput"]
    let loadWidths = (0..<loadHeader.count).map { column in ([loadHeader] + loadRows).map { $0[column].count }.max() ?? 0 }
    print("")
    print("Matched requests beside unmatched ones: the core's resolve on one thread while another sends \(unmatchedCount.formatted()) unmatched requests, twice")
    print("| " + loadHeader.enumerated().map { pad($1, loadWidths[$0]) }.joined(separator: " | ") + " |")
    print("|" + loadWidths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|")
    for row in loadRows {
        print("| " + row.enumerated().map { $0 == 0 ? pad($1, loadWidths[$0]) : padLeft($1, loadWidths[$0]) }.joined(separator: " | ") + " |")
    }
}

if let jsonPath {
    let data = try JSONSerialization.data(withJSONObject: figures, options: [.prettyPrinted, .sortedKeys])
    try data.write(to: URL(fileURLWithPath: jsonPath))
}

var swiftVersion: String {
    #if swift(>=6.3)
    "6.3+"
    #else
    "6.x"
    #endif
}
