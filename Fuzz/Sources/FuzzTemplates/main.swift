// The program's main: hands the harness (LLVMFuzzerTestOneInput in FuzzTemplates.swift) to libFuzzer.
import FuzzSupport

runLibFuzzer { fuzzTemplates($0, $1) }
