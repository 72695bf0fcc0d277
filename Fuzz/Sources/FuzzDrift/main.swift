// The program's main: hands the harness (LLVMFuzzerTestOneInput in FuzzDrift.swift) to libFuzzer.
import FuzzSupport

runLibFuzzer { fuzzDrift($0, $1) }
