import Foundation

/// How much of the machine's memory is in use, for the memory-pressure check of
/// `performMaintenance`. Apps on iOS usually know better (a memory warning, or
/// `os_proc_available_memory`) and pass their own figure; this reads what the system reports.
public enum SystemMemory {
    /// The fraction of physical memory in use (0…1): on Linux from `/proc/meminfo`
    /// (1 − MemAvailable / MemTotal); nil where the system does not say.
    public static func usedFraction() -> Double? {
        #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return nil }
        return usedFraction(meminfo: text)
        #else
        return nil
        #endif
    }

    /// The used fraction from the text of `/proc/meminfo`.
    public static func usedFraction(meminfo: String) -> Double? {
        var fields: [String: Double] = [:]
        for line in meminfo.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == ":" || $0 == " " })
            guard parts.count >= 2, let value = Double(parts[1]) else { continue }
            fields[String(parts[0])] = value
        }
        guard let total = fields["MemTotal"], total > 0, let available = fields["MemAvailable"] else { return nil }
        return min(1, max(0, 1 - available / total))
    }
}
