// The program's main: hands the harness (LLVMFuzzerTestOneInput in FuzzWireMockXML.swift) to libFuzzer.
import FuzzSupport

runLibFuzzer { fuzzWireMockXML($0, $1) }
