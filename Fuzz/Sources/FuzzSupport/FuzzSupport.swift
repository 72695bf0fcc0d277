// What both harnesses share: running libFuzzer from a SwiftPM executable, and keeping the
// registry's messages out of libFuzzer's output.
import CLibFuzzer
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Hands the command line and a harness to libFuzzer and exits with its status.
///
/// SwiftPM links an executable's own main (it renames the module's entry point and points `main`
/// at it), so libFuzzer's main cannot be used; `LLVMFuzzerRunDriver` is libFuzzer's API for that
/// case. Pass a closure that calls the `@_cdecl` function, not the function itself: a `@_cdecl`
/// function passed as a C pointer gets its C thunk emitted again, and the link fails with two
/// `LLVMFuzzerTestOneInput`.
public func runLibFuzzer(_ harness: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, harness))
}

/// The registry reports rejected stubs and warnings on standard error; thousands of inputs a
/// second would bury libFuzzer's own output. `AIRLOCK_FUZZ_VERBOSE=1` shows them (`Fuzz/run`
/// sets it when it replays a crash).
private let quiet = ProcessInfo.processInfo.environment["AIRLOCK_FUZZ_VERBOSE"] == nil
private let devNull = open("/dev/null", O_WRONLY)

/// Runs `body` with standard error sent to /dev/null, unless `AIRLOCK_FUZZ_VERBOSE` is set.
public func silencingStandardError<T>(_ body: () -> T) -> T {
    guard quiet, devNull >= 0 else { return body() }
    let saved = dup(STDERR_FILENO)
    dup2(devNull, STDERR_FILENO)
    defer {
        dup2(saved, STDERR_FILENO)
        close(saved)
    }
    return body()
}
