import TimelineEngineValueTree

/// The store's text for a small map of device ids to integers (a causal context, clock
/// bounds): a JSON object, `{"laptop":3,"phone":12}`, written and read here without building
/// a value tree, since every save reads and writes several. `decode` reads exactly what
/// `encode` writes, and says nil for anything else (the caller then reads it as JSON).
enum IntegerMap {
    static func encode(_ pairs: [(String, Int64)]) -> String {
        var text = "{"
        for (number, (key, value)) in pairs.enumerated() {
            if number > 0 { text += "," }
            text += "\""
            for scalar in key.unicodeScalars { Value.appendEscaped(scalar, to: &text) }
            text += "\":"
            text += String(value)
        }
        return text + "}"
    }

    static func decode(_ text: String) -> [(String, Int64)]? {
        var text = text
        return text.withUTF8 { bytes -> [(String, Int64)]? in
            var position = 0
            func next() -> UInt8? { position < bytes.count ? bytes[position] : nil }
            guard next() == UInt8(ascii: "{") else { return nil }
            position += 1
            var pairs: [(String, Int64)] = []
            if next() == UInt8(ascii: "}") { return position + 1 == bytes.count ? pairs : nil }
            while true {
                guard next() == UInt8(ascii: "\"") else { return nil }
                position += 1
                let start = position
                while let byte = next(), byte != UInt8(ascii: "\"") {
                    // Escapes are rare in device ids: leave them to the JSON reader.
                    if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                    position += 1
                }
                guard next() == UInt8(ascii: "\"") else { return nil }
                let key = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                position += 1
                guard next() == UInt8(ascii: ":") else { return nil }
                position += 1
                let negative = next() == UInt8(ascii: "-")
                if negative { position += 1 }
                var magnitude: UInt64 = 0
                var digits = 0
                while let byte = next(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                    let (times, overflowTimes) = magnitude.multipliedReportingOverflow(by: 10)
                    let (sum, overflowSum) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
                    guard !overflowTimes, !overflowSum else { return nil }
                    magnitude = sum
                    digits += 1
                    position += 1
                }
                guard digits > 0 else { return nil }
                if negative {
                    guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
                    pairs.append((key, magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)))
                } else {
                    guard magnitude <= UInt64(Int64.max) else { return nil }
                    pairs.append((key, Int64(magnitude)))
                }
                switch next() {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "}"): return position + 1 == bytes.count ? pairs : nil
                default: return nil
                }
            }
        }
    }
}
