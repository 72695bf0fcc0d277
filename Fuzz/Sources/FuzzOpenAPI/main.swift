// The program's main: hands the harness (LLVMFuzzerTestOneInput in FuzzOpenAPI.swift) to libFuzzer.
import FuzzSupport

runLibFuzzer { fuzzOpenAPI($0, $1) }
