// The program's main: hands the harness (LLVMFuzzerTestOneInput in FuzzStubFile.swift) to libFuzzer.
import FuzzSupport

runLibFuzzer { fuzzStubFile($0, $1) }
