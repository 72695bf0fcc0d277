// The program's main: hands the command line and the harness (LLVMFuzzerTestOneInput in
// FuzzMatching.swift) to libFuzzer.
//
// SwiftPM links an executable's own main (it renames the module's entry point and points `main`
// at it), so libFuzzer's main cannot be used; LLVMFuzzerRunDriver is libFuzzer's API for that case.
import CLibFuzzer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
// A closure, not the function itself: a @_cdecl function passed as a C pointer gets its C thunk
// emitted again in this file, and the link fails with two LLVMFuzzerTestOneInput.
exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzzMatching($0, $1) })
