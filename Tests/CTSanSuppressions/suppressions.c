// ThreadSanitizer's suppressions for the test binary, read by its runtime at start-up (this weak
// hook is how a program gives them without TSAN_OPTIONS). Unused in a build without TSan.
//
// One entry: grpc-swift-nio-transport, the HTTP/2 transport of the grpc-swift client the gRPC tests
// use as a client no one here wrote, keeps its channel's state under Synchronization's `Mutex`,
// which ThreadSanitizer on Linux cannot see (measured on this project's machines: a counter
// incremented under `Mutex` from `DispatchQueue.concurrentPerform` is reported as a race, the same
// under a pthread lock is not). Its reports are about that lock, not about Airlock; Airlock's own
// locks are pthread ones (`Locked`), which it sees.
const char *__tsan_default_suppressions(void);

const char *__tsan_default_suppressions(void) {
    return "race:grpc-swift-nio-transport/Sources/GRPCNIOTransportCore/\n";
}
