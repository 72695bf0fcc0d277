// The program's main: hands the harness (LLVMFuzzerTestOneInput in FuzzGRPC.swift) to libFuzzer.
import FuzzSupport

runLibFuzzer { fuzzGRPC($0, $1) }
