// A small program that links Airgap and tries connections, for tests that need a fresh process:
// whole-run mode (AIRGAP_MODE at start-up), URLSession.shared before its first use, and
// blocking loopback without disturbing other tests.
//
// Usage: AirgapProbe ACTION…   where ACTION is one of
//   mode=fail|warn  allow=host,host  activate  deactivate  allow-network
//   connect=ADDRESS:PORT (raw TCP)  unix (AF_UNIX connect)  resolve=NAME  nio=HOST:PORT
//   shared=URL  default=URL  ephemeral=URL  protected=URL  data=URL
//   violations  report=PATH  status
//   nameserver=UDPPORT (point this thread's resolver at 127.0.0.1:UDPPORT)
//   route=NAME:TCPPORT:UDPPORT (one network route of CAirgapRoutes, see airgap_route)
//   process (Process().run() + waitUntilExit() of /bin/true)
//   spawn=PROGRAM,ARG,… (Process with the inherited environment; prints the exit status)
//   localhost-scope=PORT (in withConfiguration(allowedHosts: ["localhost"]): resolve localhost,
//   connect to 127.0.0.1:PORT)
//   name-allowed=NAME,… (the C matcher's verdict for each name under the allowed hosts: 1 or 0)
//   fork-lookup=NAME,… (getaddrinfo of each name, port 80, in a forked child in a network
//   namespace of its own)  preload-lookup=NAME,… (`getent ahosts NAME` for each, in a child
//   process started through `unshare -n`)
//   hosts (the host and port of each violation: HOST:PORT …)
// Each action prints one line "ACTION -> RESULT".
import Airgap
import CAirgap
import CAirgapRoutes
import Foundation
import NIOCore
import NIOPosix

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(Glibc)
import Glibc
#endif

func splitHostPort(_ text: String) -> (String, Int) {
    guard let colon = text.lastIndex(of: ":") else { return (text, 80) }
    var host = String(text[..<colon])
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    return (host, Int(text[text.index(after: colon)...]) ?? 80)
}

func rawConnect(_ target: String) -> String {
    let (host, port) = splitHostPort(target)
    var hints = addrinfo()
    hints.ai_flags = AI_NUMERICHOST
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host, String(port), &hints, &list)
    guard status == 0, let info = list else { return "eai:\(status)" }
    defer { freeaddrinfo(list) }
    let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return "ok" }
    return errno == ECONNREFUSED ? "ECONNREFUSED" : "errno:\(errno)"
}

func unixConnect() -> String {
    let path = NSTemporaryDirectory() + "airgap-probe-\(getpid()).sock"
    unlink(path)
    defer { unlink(path) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
        for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
    }
    let length = socklen_t(MemoryLayout<sockaddr_un>.size)
    let server = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    let client = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(server); close(client) }
    let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(server, $0, length) } }
    guard bound == 0, listen(server, 1) == 0 else { return "setup:\(errno)" }
    let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) } }
    return connected == 0 ? "ok" : "errno:\(errno)"
}

func resolve(_ name: String) -> String {
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(name, "80", &hints, &list)
    if status == 0 { freeaddrinfo(list); return "ok" }
    return status == EAI_NONAME ? "EAI_NONAME" : "eai:\(status)"
}

func nioConnect(_ target: String) async -> String {
    let (host, port) = splitHostPort(target)
    let group = MultiThreadedEventLoopGroup.singleton
    do {
        let channel = try await ClientBootstrap(group: group)
            .connectTimeout(.seconds(60))
            .connect(host: host, port: port).get()
        try await channel.close()
        return "ok"
    } catch {
        return "error:\(error)"
    }
}

func fetch(_ session: URLSession, _ url: String) async -> String {
    do {
        let (_, response) = try await session.data(from: URL(string: url)!)
        return "ok:\((response as? HTTPURLResponse)?.statusCode ?? 0)"
    } catch let error as URLError {
        return "urlerror:\(error.code.rawValue)"
    } catch {
        return "error:\(error)"
    }
}

/// Runs a program with the inherited environment and waits for it: "exit:STATUS".
func runProcess(_ command: [String]) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: command[0])
    process.arguments = Array(command.dropFirst())
    process.standardOutput = FileHandle.nullDevice
    do {
        try process.run()
    } catch {
        return "error:\(error)"
    }
    process.waitUntilExit()
    return "exit:\(process.terminationStatus)"
}

func configured(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
    configuration.timeoutIntervalForRequest = 60
    return configuration
}

for argument in CommandLine.arguments.dropFirst() {
    let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
    let action = parts[0]
    let value = parts.count > 1 ? parts[1] : ""
    let result: String
    switch action {
    case "mode":
        Airgap.mode = value == "warn" ? .warn : .fail
        result = "ok"
    case "allow":
        Airgap.allowedHosts = Set(value.split(separator: ",").map(String.init))
        result = "ok"
    case "activate":
        Airgap.activate()
        result = "ok"
    case "deactivate":
        Airgap.deactivate()
        result = "ok"
    case "allow-network":
        Airgap.allowNetworkAccess()
        result = "ok"
    case "connect":
        result = rawConnect(value)
    case "unix":
        result = unixConnect()
    case "resolve":
        result = resolve(value)
    case "nio":
        result = await nioConnect(value)
    case "shared":
        result = await fetch(URLSession.shared, value)
    case "default":
        result = await fetch(URLSession(configuration: configured(.default)), value)
    case "ephemeral":
        result = await fetch(URLSession(configuration: configured(.ephemeral)), value)
    case "protected":
        result = await fetch(URLSession(configuration: Airgap.protect(configured(.default))), value)
    case "data":
        result = (try? Data(contentsOf: URL(string: value)!)).map { "ok:\($0.count)" } ?? "error"
    case "violations":
        let all = Airgap.violations
        result = "\(all.count)" + all.map { " [\($0.httpMethod) \($0.url)]" }.joined()
    case "report":
        Airgap.reportPath = value
        Airgap.writeReport()
        result = "ok"
    case "nameserver":
        airgap_routes_use_nameserver(Int32(value) ?? 53)
        result = "ok"
    case "route":
        let fields = value.split(separator: ":").map(String.init)
        let status = airgap_route(fields[0], Int32(fields.count > 1 ? fields[1] : "") ?? 0, Int32(fields.count > 2 ? fields[2] : "") ?? 0)
        result = status == 0 ? "ok" : "failed:\(status)"
    case "process":
        result = runProcess(["/bin/true"])
    case "spawn":
        result = runProcess(value.split(separator: ",").map(String.init))
    case "localhost-scope":
        result = Airgap.withConfiguration(allowedHosts: ["localhost"]) {
            "\(resolve("localhost")),\(rawConnect("127.0.0.1:\(value)"))"
        }
    case "name-allowed":
        result = value.split(separator: ",").map { airgap_name_allowed(String($0)) == 1 ? "1" : "0" }.joined(separator: ",")
    case "fork-lookup":
        result = "exit:\(airgap_routes_fork_lookups(value))"
    case "preload-lookup":
        let unshare = ["/usr/bin/unshare", "/bin/unshare"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "unshare"
        let script = "for n do getent ahosts \"$n\" >/dev/null; done; exit 0"
        result = runProcess([unshare, "-n", "/bin/sh", "-c", script, "sh"] + value.split(separator: ",").map(String.init))
    case "hosts":
        result = Airgap.violations.map { "\($0.host ?? "?"):\($0.port ?? 0)" }.joined(separator: " ")
    case "status":
        result = "active=\(Airgap.isActive) wholeRun=\(Airgap.isWholeRun) mode=\(Airgap.mode) allowed=\(Airgap.allowedHosts.sorted())"
    default:
        result = "unknown action"
    }
    FileHandle.standardOutput.write(Data("\(argument) -> \(result)\n".utf8))
}
