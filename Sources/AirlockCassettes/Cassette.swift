import AirlockBase
import AirlockCore
import AirlockStubFiles
import Foundation

/// Real traffic recorded once into a HAR file and replayed from it on every later run.
///
/// Bind a mock to a cassette; what the mock cannot answer from the file it forwards to the real
/// server (through its passthrough session or forwarder) and records, as the ``mode`` allows:
///
/// ```swift
/// let cassette = try Cassette(contentsOf: URL(fileURLWithPath: "Fixtures/users.har"), mode: .once)
/// let mock = HTTPMock(cassette: cassette)
/// let (data, _) = try await mock.urlSession.data(from: URL(string: "https://api.example.com/users")!)
/// try cassette.save()
/// ```
///
/// Under Swift Testing the `.cassette` trait (module `HTTPMockTesting`) makes one cassette per
/// test in `__Cassettes__` beside the test file and saves it when the test ends.
///
/// **Modes** (``RecordMode``): `once` records when the file does not exist and replays
/// otherwise; `newEpisodes` replays what matches and records what does not; `none` only
/// replays; `all` records everything again and keeps only what was requested. The
/// `AIRLOCK_RECORD` environment variable overrides the mode for one run, and when `CI` is set
/// the mode is `none` unless `AIRLOCK_RECORD` says otherwise — CI never records by accident.
///
/// **Misses**: while the cassette records (`newEpisodes`, `all`, `once` before the file exists),
/// a request it has no entry for is forwarded and recorded. While it does not (`none`, with or
/// without a file, and `once` once the file exists), such a request — or one made more often than
/// recorded — is a *replay miss*: it fails, whatever the mock's unmocked policy, with a diagnosis
/// naming the request, the nearest recorded entries with what differs, and the command that
/// records it. Through `URLSession` the client gets `URLError(.resourceUnavailable)` with that
/// message; through a socket (`MockServer`, `airlock serve`), `502 Bad Gateway` with
/// `Airlock-Error: replay-miss` and the message as text. Each miss is kept in ``misses``, and the
/// `.cassette` trait and the XCTest `cassette()` helper fail the test for it.
///
/// **Replay**: identical requests get their recorded responses in recorded order. A request
/// matches an entry on method, host, path, query (in any order) and body by meaning (JSON
/// equality, form fields; other bodies byte for byte); ``Matching`` ignores query items or JSON
/// keys, compares headers, or replaces the comparison with a `RequestMatcher` of your own.
///
/// **Secrets** never reach the file: ``redaction`` is applied as each exchange is recorded, and
/// the placeholder it leaves (`[REDACTED]`) matches any value on replay.
///
/// **Expiry**: with a ``maxAge`` (given here, or kept in the file), a cassette older than that is
/// recorded again from scratch where the mode records, and fails to open where it does not (`CI`),
/// saying how old it is. ``verify(against:options:send:)`` checks a cassette against the live
/// service instead, entry by entry, and ``replaceDriftedEntries(from:redaction:)`` refreshes it:
/// the entries that drifted are recorded again and, once every entry is confirmed, the file is
/// stamped (`_verifiedAt`), from which its age counts again.
///
/// A cassette writes its file after every recorded exchange (off the caller's thread); ``save()``
/// waits for the last write and reports any error.
public final class Cassette: Sendable {
    /// When a cassette records.
    public enum RecordMode: String, Sendable, CaseIterable, CustomStringConvertible {
        /// Record when the file does not exist; replay only once it does (a request the file
        /// does not answer is then a replay miss, as in ``none``). The default.
        case once
        /// Replay what the file answers; record and append what it does not.
        case newEpisodes
        /// Replay only, with or without a file: a request the file does not answer is a replay
        /// miss — it fails with the usual diagnostic and the command that records it, and is kept
        /// in ``Cassette/misses``.
        case none
        /// Record every request again; the file keeps only the exchanges of this run.
        case all

        /// The name, as `AIRLOCK_RECORD` takes it.
        public var description: String { rawValue }

        /// The mode for a run: `AIRLOCK_RECORD` when set, `none` when `CI` is set, else
        /// `requested`.
        /// - Parameters:
        ///   - requested: The mode the code asks for.
        ///   - environment: The process environment.
        /// - Throws: ``CassetteError`` when `AIRLOCK_RECORD` names no mode.
        public static func effective(requested: RecordMode, environment: [String: String]) throws(CassetteError) -> RecordMode {
            if let raw = environment["AIRLOCK_RECORD"]?.trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty {
                let key = raw.lowercased().replacingOccurrences(of: "_", with: "").replacingOccurrences(of: "-", with: "")
                guard let mode = allCases.first(where: { $0.rawValue.lowercased() == key }) else {
                    throw CassetteError(
                        .invalidRecordMode,
                        file: nil,
                        problem: "AIRLOCK_RECORD is \"\(raw)\", which is not a record mode",
                        fix: "Set it to one of " + allCases.map { "\"\($0)\"" }.joined(separator: ", ") + ", or unset it."
                    )
                }
                return mode
            }
            if let ci = environment["CI"]?.trimmingCharacters(in: .whitespaces).lowercased(), !["", "0", "false", "no"].contains(ci) {
                return .none
            }
            return requested
        }
    }

    /// The HAR file.
    public let url: URL
    /// The mode in effect for this run (after `AIRLOCK_RECORD` and `CI`).
    public let mode: RecordMode
    /// How requests are matched to recorded entries.
    public let matching: Matching
    /// What is hidden before an exchange reaches the file.
    public let redaction: Redaction
    /// How fast recorded streams (server-sent events, chunked bodies kept with their parts) and
    /// the server's side of recorded WebSocket conversations replay: as recorded, scaled, or at once.
    public let pace: StreamPace
    /// Edits each exchange before it is redacted and written, or leaves it out (`nil`), as VCR's
    /// `before_record` does.
    public let beforeRecord: (@Sendable (RecordedRequest) -> RecordedRequest?)?
    /// Whether requests the file does not answer are forwarded and recorded.
    public let isRecording: Bool
    /// How old the recording may grow before it is recorded again: the one given to the
    /// initializer, or the file's own. Written into the file with it.
    public let maxAge: MaxAge?
    /// How to record a missing exchange, for messages (such as
    /// `AIRLOCK_RECORD=newEpisodes swift test --filter UsersTests`).
    public let recordCommand: String

    /// The entries that replay: the file's, unless the mode records everything again.
    package let replayed: HTTPArchive
    /// Whether the file existed when the cassette was opened.
    package let fileExisted: Bool
    /// Whether the cassette only replays because `CI` is set (the code asked for a mode that records).
    private let isReplayOnlyForCI: Bool

    private struct State {
        var recorded: [RecordedRequest] = []
        var writeError: CassetteError?
        /// Whether a write is queued that has not read the entries yet: it will include every
        /// exchange recorded meanwhile, so no other is queued.
        var writeQueued = false
    }

    private let state = Locked(State())
    /// The replay misses, for ``misses`` (Cassette+Misses.swift).
    let missLog = Locked<[Miss]>([])
    /// Writes the file, one snapshot at a time, off the threads that record.
    private let writer = DispatchQueue(label: "airlock.cassette.writer")

    /// Opens a cassette, reading the file if it exists.
    ///
    /// - Parameters:
    ///   - url: The HAR file; it need not exist yet (folders are made when it is written).
    ///   - mode: When to record. `AIRLOCK_RECORD` and `CI` in `environment` override it.
    ///   - matching: How requests match recorded entries.
    ///   - redaction: What to hide before anything reaches the file. Defaults to `standard`.
    ///   - recordCommand: The command that records this cassette, for messages; by default
    ///     `AIRLOCK_RECORD=newEpisodes swift test`.
    ///   - environment: Where `AIRLOCK_RECORD` and `CI` are read. Defaults to the process's.
    ///   - pace: How fast recorded streams replay. Defaults to ``StreamPace/asRecorded``.
    ///   - maxAge: How old the recording may grow (from its oldest entry, or from when the live
    ///     service last confirmed every entry, `_verifiedAt`, if later) before it is recorded
    ///     again; `nil` keeps the file's own (`_maxAge` in its `log`), if any. The file keeps it.
    ///     An older cassette records everything again where the mode records (as `all`); where
    ///     it may not (`CI` set, mode `none`) opening it fails with ``CassetteError/Code/expired``,
    ///     saying how old it is and how to refresh it — never a silent live call.
    ///   - beforeRecord: Edits each recorded exchange before redaction and the file see it —
    ///     drop a volatile header, hide a value the rules do not know — or returns `nil` to leave
    ///     it out of the file. Redaction still runs on what it returns.
    /// - Throws: ``CassetteError`` when the file is not a HAR file, `AIRLOCK_RECORD` names no
    ///   mode, or the cassette is expired where it may not record.
    public init(
        contentsOf url: URL,
        mode: RecordMode = .once,
        matching: Matching = Matching(),
        redaction: Redaction = .standard,
        recordCommand: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        pace: StreamPace = .asRecorded,
        maxAge: MaxAge? = nil,
        beforeRecord: (@Sendable (RecordedRequest) -> RecordedRequest?)? = nil
    ) throws(CassetteError) {
        self.url = url
        self.pace = pace
        self.matching = matching
        self.redaction = redaction
        self.beforeRecord = beforeRecord
        var effective = try RecordMode.effective(requested: mode, environment: environment)
        isReplayOnlyForCI = effective == .none && mode != .none
            && environment["AIRLOCK_RECORD"]?.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ?? true
        fileExisted = FileManager.default.fileExists(atPath: url.path)
        let recordCommand = recordCommand ?? "AIRLOCK_RECORD=newEpisodes swift test"
        self.recordCommand = recordCommand
        var replayed = HTTPArchive(entries: [])
        var fileMaxAge: MaxAge?
        if fileExisted, effective != .all {
            do {
                replayed = try HTTPArchive(contentsOf: url)
            } catch {
                throw CassetteError(
                    .invalidFile,
                    file: url.path,
                    problem: error.description,
                    fix: "Fix the file, or delete it and record it again (\(recordCommand)).",
                    fileError: error
                )
            }
            fileMaxAge = replayed.maxAge
            if let limit = maxAge ?? fileMaxAge, let since = Self.ageStart(of: replayed), Date().timeIntervalSince(since.date) > limit.seconds {
                let age = Date().timeIntervalSince(since.date)
                guard effective != .none else {
                    let refresh = isReplayOnlyForCI
                        ? "CI only replays, so it is not recorded again here: refresh it where the service is reachable — run the test without CI, or `airlock cassette verify \(url.path) --against <origin> --update` — and commit it."
                        : "This run does not record (mode \"none\"): record it again (\(recordCommand)), or run `airlock cassette verify \(url.path) --against <origin> --update`, and commit it."
                    throw CassetteError(
                        .expired,
                        file: url.path,
                        problem: "is \(MaxAge.spoken(age)) old (\(since.reason) \(Timestamp.string(from: since.date))), older than its maximum age of \(limit)",
                        fix: refresh
                    )
                }
                // Where the mode records, an expired cassette is recorded again from scratch.
                effective = .all
                replayed = HTTPArchive(entries: [])
            }
        }
        if fileExisted, effective == .all, maxAge == nil, fileMaxAge == nil {
            // Recorded again from scratch, the file's maximum age kept.
            fileMaxAge = (try? HTTPArchive(contentsOf: url))?.maxAge
        }
        self.replayed = replayed
        self.maxAge = maxAge ?? fileMaxAge
        self.mode = effective
        switch effective {
        case .once: isRecording = !fileExisted
        case .newEpisodes, .all: isRecording = true
        case .none: isRecording = false
        }
    }

    /// The cassette's current entries, as the file holds them once saved: the replayed entries
    /// (unless the mode records everything again) followed by the exchanges recorded in this run,
    /// redacted.
    public var entries: [RecordedRequest] {
        let recorded = state.withLock { $0.recorded }
        return replayed.entries + recorded
    }

    /// The exchanges recorded in this run, redacted, in the order they completed.
    public var recordedEntries: [RecordedRequest] {
        state.withLock { $0.recorded }
    }

    /// Writes the file if this run recorded anything (in `all` mode, always), after every
    /// pending write.
    /// - Throws: ``CassetteError`` when a write failed.
    public func save() throws(CassetteError) {
        let recordedAny = state.withLock { !$0.recorded.isEmpty }
        if mode == .all || recordedAny {
            let snapshot = HTTPArchive(entries: entries, maxAge: maxAge, verifiedAt: replayed.verifiedAt).data(redaction: .none)
            writer.sync { write(snapshot) }
        } else {
            writer.sync {}
        }
        if let error = state.withLock({ $0.writeError }) { throw error }
    }

    /// Adds a forwarded exchange: redacts it, keeps it, and writes the file in the background.
    package func record(_ exchange: RecordedRequest) {
        guard case .response = exchange.response?.outcome, let exchange = beforeRecord.map({ $0(exchange) }) ?? exchange else { return }
        // Redaction also hides a secret the request carried wherever else it shows: echoed in the
        // response, in a body that is not JSON, in a redirect's Location.
        // The body is kept as received, and every field with it but those that described one
        // connection's transfer.
        let clean = Self.cleaned(exchange, redaction: redaction)
        // One queued write at a time, which writes every entry recorded by the time it runs: a
        // write per exchange rewrote the whole file once per exchange (a recording of n
        // exchanges cost n² entries' work, and `airlock record` slowed as the cassette grew).
        let queues = state.withLock { state in
            state.recorded.append(clean)
            defer { state.writeQueued = true }
            return !state.writeQueued
        }
        guard queues else { return }
        writer.async { [self] in
            // Cleared before the entries are read: an exchange recorded after this queues the next write.
            state.withLock { $0.writeQueued = false }
            let began = DispatchTime.now().uptimeNanoseconds
            write(HTTPArchive(entries: entries, maxAge: maxAge, verifiedAt: replayed.verifiedAt).data(redaction: .none))
            // The writer then rests as long as the write took: under a sustained load the
            // rewrites of a growing file take at most half of a core from the servers' threads.
            // `save()` still writes everything, after this rest.
            usleep(useconds_t(min((DispatchTime.now().uptimeNanoseconds - began) / 1_000, 1_000_000)))
        }
    }

    /// When a recording's age starts: its oldest entry's date, or when the live service last
    /// confirmed every entry (`_verifiedAt`), whichever is later — with how messages say it.
    static func ageStart(of archive: HTTPArchive) -> (date: Date, reason: String)? {
        guard let oldest = archive.entries.map(\.date).min() else { return nil }
        if let verified = archive.verifiedAt, verified > oldest {
            return (verified, "the live service last confirmed every entry")
        }
        return (oldest, "its oldest entry was recorded")
    }

    /// Response fields that describe one connection's transfer, not the response: a cassette
    /// does not keep them.
    package static let connectionFields: Set<String> = ["transfer-encoding", "connection", "keep-alive"]

    /// Fields a replay does not send as recorded: the transport frames the body itself.
    package static let framingFields: Set<String> = ["content-length", "transfer-encoding", "connection", "keep-alive"]

    /// Fields of a recorded `101` a replay does not send as recorded: the server's handshake
    /// writes its own for the client's key, and negotiates no extension.
    package static let webSocketHandshakeFields: Set<String> = ["upgrade", "sec-websocket-accept", "sec-websocket-extensions"]

    private func write(_ data: Data) {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url, options: .atomic)
        } catch {
            state.withLock {
                $0.writeError = CassetteError(.writeFailed, file: url.path, problem: "cannot be written (\(error.localizedDescription))", fix: "Check that the folder is writable.")
            }
        }
    }

    /// What the message for a request the cassette cannot answer adds: why, and how to record it.
    package var unmatchedHint: String {
        let name = url.lastPathComponent
        if !fileExisted, isReplayOnlyForCI {
            return "The cassette \(name) does not exist (\(url.path)), and CI is set, so cassettes only replay: a missing one fails "
                + "instead of recording. Record it where the service is reachable (run the test without CI) and commit it, or: \(recordCommand)"
        }
        if !fileExisted, !isRecording {
            return "The cassette \(name) does not exist (\(url.path)), and mode \"\(mode)\" does not record. To record it: \(recordCommand)"
        }
        return "The cassette \(name) has no entry for this request (mode \"\(mode)\"). To record it: \(recordCommand)"
            + (mode == .none ? "" : ", or delete \(url.path) and run again.")
    }
}

extension Cassette {
    /// The cassette of the running test, set by the `.cassette` trait (module `HTTPMockTesting`).
    @TaskLocal package static var scoped: Cassette?

    /// Where the `.cassette` trait reads `AIRLOCK_RECORD` and `CI`, when a test of the trait itself
    /// sets it (`CI` for one test, without touching the process's environment); `nil`: the process's.
    @TaskLocal package static var scopedEnvironment: [String: String]?

    /// The cassette of the running test, as the `.cassette` trait opened it.
    ///
    /// ```swift
    /// @Test(.cassette) func listsUsers() async throws {
    ///     let mock = try HTTPMock(cassette: .current())
    ///     …
    /// }
    /// ```
    ///
    /// - Throws: ``CassetteError`` when the running test has no `.cassette` trait.
    public static func current() throws(CassetteError) -> Cassette {
        guard let cassette = scoped else {
            throw CassetteError(
                .noCurrentCassette,
                file: nil,
                problem: "the running test has no cassette",
                fix: "Add the trait: @Test(.cassette) (import HTTPMockTesting); under XCTest call cassette() on the test case."
            )
        }
        return cassette
    }
}
