import Foundation

#if canImport(Testing)
import Testing
#endif
#if canImport(XCTest)
import XCTest
#endif

/// Reports a contract violation as a failure of the test that asked for the check, at the line
/// of its `validate(against:)` call.
///
/// - Swift Testing: an `Issue` of the test that called `validate(against:)`. Swift Testing
///   records an issue for the test whose task records it: an exchange that ends on that task
///   (an `AirlockTransport` call) records it at once; one that ends on another thread (a
///   `URLSession`'s, a server's event loop) hands it to a task the test started, which records
///   it while the exchange waits — so the issue belongs to the test before its response goes out.
/// - XCTest: `XCTFail` on the test case running.
struct ContractTestFailure: Sendable {
    let fileID: String
    let filePath: StaticString
    let line: UInt
    let column: UInt
    #if canImport(Testing)
    /// The way to the test that asked for the check, if a Swift Testing test did.
    let channel: IssueChannel?
    #endif

    init(fileID: String, filePath: StaticString, line: UInt, column: UInt) {
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
        self.column = column
        #if canImport(Testing)
        channel = Test.current == nil ? nil : IssueChannel()
        #endif
    }

    @Sendable func report(_ violation: ContractViolation) {
        let message = "Contract violation: \(violation)"
        #if canImport(Testing)
        let location = SourceLocation(fileID: fileID, filePath: "\(filePath)", line: Int(line), column: Int(column))
        if Test.current != nil {
            Issue.record(Comment(rawValue: message), sourceLocation: location)
            return
        }
        if let channel {
            channel.record(message, at: location)
            return
        }
        #endif
        #if canImport(XCTest)
        XCTFail(message, file: filePath, line: line)
        #else
        FileHandle.standardError.write(Data("error: \(filePath):\(line): \(message)\n".utf8))
        #endif
    }
}

#if canImport(Testing)
/// Records issues from any thread for the test that made it: a task started on the test's task
/// (so it runs with the test as `Test.current`) records each issue handed over, while the thread
/// that handed it waits.
///
/// The task runs on a thread of its own where task executors exist (every platform of Swift 6's
/// runtime: Linux, macOS 15, iOS 18): tests busy on every thread of the shared pool cannot keep
/// it from recording. Elsewhere it runs in the pool.
final class IssueChannel: Sendable {
    private struct Report: Sendable {
        let message: String
        let location: SourceLocation
        let recorded: DispatchSemaphore
    }

    private let reports: AsyncStream<Report>.Continuation

    /// Starts the recording task; call on the test's task.
    init() {
        let (stream, continuation) = AsyncStream<Report>.makeStream()
        reports = continuation
        let record: @Sendable () async -> Void = {
            for await report in stream {
                Issue.record(Comment(rawValue: report.message), sourceLocation: report.location)
                report.recorded.signal()
            }
        }
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            Task(executorPreference: ReportingThread.shared) { await record() }
        } else {
            Task { await record() }
        }
    }

    deinit {
        reports.finish()
    }

    /// Hands an issue to the test's task and waits until it is recorded (at most
    /// ``patience`` seconds, so that nothing can hang a response: past it, the issue is
    /// recorded here, for the run).
    func record(_ message: String, at location: SourceLocation) {
        let recorded = DispatchSemaphore(value: 0)
        reports.yield(Report(message: message, location: location, recorded: recorded))
        if recorded.wait(timeout: .now() + Self.patience) == .timedOut {
            Issue.record(Comment(rawValue: message), sourceLocation: location)
        }
    }

    static let patience: TimeInterval = 120
}

/// One thread that runs the jobs of the tasks that prefer it, one at a time: the recorders of
/// ``IssueChannel``.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
final class ReportingThread: TaskExecutor, @unchecked Sendable {
    static let shared = ReportingThread()

    // @unchecked Sendable: `jobs` is read and written under `condition` only.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init() {
        let thread = Thread { [unowned self] in run() }
        thread.name = "Airlock contract reports"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
#endif
