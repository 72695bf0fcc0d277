// The program's main: hands the harness (LLVMFuzzerTestOneInput in FuzzHAR.swift) to libFuzzer.
import FuzzSupport

runLibFuzzer { fuzzHAR($0, $1) }
