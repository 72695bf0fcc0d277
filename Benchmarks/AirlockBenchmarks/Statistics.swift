import Foundation

/// Durations in nanoseconds, summarised.
struct Samples {
    var values: [Double] = []

    mutating func append(_ duration: Duration) {
        values.append(nanoseconds(duration))
    }

    func percentile(_ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let index = min(sorted.count - 1, max(0, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))
        return sorted[index]
    }

    var median: Double { percentile(50) }
    var p99: Double { percentile(99) }
}

/// Process memory from /proc/self/status, in bytes.
enum Memory {
    static func value(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            let number = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first
            return (number.flatMap { Int($0) } ?? 0) * 1024
        }
        return 0
    }

    static var resident: Int { value("VmRSS") }
    static var peak: Int { value("VmHWM") }
}

func formatNanos(_ nanos: Double) -> String {
    if nanos >= 1_000_000 { return String(format: "%.2f ms", nanos / 1_000_000) }
    if nanos >= 1_000 { return String(format: "%.1f µs", nanos / 1_000) }
    return String(format: "%.0f ns", nanos)
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

func padLeft(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}

func nanoseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
}
