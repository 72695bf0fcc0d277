// The program's main: hands the harness (LLVMFuzzerTestOneInput in FuzzWireMockMatchers.swift) to libFuzzer.
import FuzzSupport

runLibFuzzer { fuzzWireMockMatchers($0, $1) }
