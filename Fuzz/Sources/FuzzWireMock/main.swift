// The program's main: hands the harness (LLVMFuzzerTestOneInput in FuzzWireMock.swift) to libFuzzer.
import FuzzSupport

runLibFuzzer { fuzzWireMock($0, $1) }
