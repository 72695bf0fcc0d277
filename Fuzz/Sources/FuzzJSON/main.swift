// The program's main: hands the harness (LLVMFuzzerTestOneInput in FuzzJSON.swift) to libFuzzer.
import FuzzSupport

runLibFuzzer { fuzzJSON($0, $1) }
