// The program's main: hands the harness (LLVMFuzzerTestOneInput in FuzzMatching.swift) to libFuzzer.
import FuzzSupport

runLibFuzzer { fuzzMatching($0, $1) }
