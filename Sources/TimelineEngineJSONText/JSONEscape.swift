/// Decodes one backslash escape of a JSON string, for both `JSONReader` and `JSONScanner`.
enum JSONEscape {
    /// What is wrong with an escape; `message` is the text both readers report.
    enum Failure: Error, Equatable {
        /// The text ends inside the escape; reported at the end.
        case unterminated
        /// Reported at the backslash, like the others.
        case hexDigits
        case loneHigh(UInt32)
        case noLowAfter(UInt32)
        case loneLow(UInt32)
        case unknown(UInt8)

        var message: String {
            switch self {
            case .unterminated: return "unterminated string"
            case .hexDigits: return "invalid \\u escape: expected four hex digits"
            case .loneHigh(let code): return "lone high surrogate \\u\(hex(code)) in string"
            case .noLowAfter(let code): return "high surrogate \\u\(hex(code)) not followed by a low surrogate"
            case .loneLow(let code): return "lone low surrogate \\u\(hex(code)) in string"
            case .unknown(let byte) where (0x21...0x7E).contains(byte): return "invalid escape '\\\(Character(Unicode.Scalar(byte)))' in string"
            // A control character or a byte of a longer character is named, not printed.
            case .unknown(let byte):
                return "invalid escape: '\\' followed by the byte 0x\(byte < 16 ? "0" : "")\(String(byte, radix: 16, uppercase: true)) in string"
            }
        }

        private func hex(_ code: UInt32) -> String {
            let digits = String(code, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
    }

    /// Decodes the escape whose backslash is at `position`, moves `position` past it, and passes
    /// the decoded UTF-8 bytes to `append`.
    @inline(__always)
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at position: inout Int, append: (UInt8) -> Void) throws(Failure) {
        position += 1
        guard position < bytes.count else { throw .unterminated }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): append(byte)
        case UInt8(ascii: "b"): append(0x08)
        case UInt8(ascii: "f"): append(0x0C)
        case UInt8(ascii: "n"): append(0x0A)
        case UInt8(ascii: "r"): append(0x0D)
        case UInt8(ascii: "t"): append(0x09)
        case UInt8(ascii: "u"):
            var code = try hex4(bytes, at: &position)
            if (0xD800...0xDBFF).contains(code) {
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                    throw .loneHigh(code)
                }
                position += 2
                let low = try hex4(bytes, at: &position)
                guard (0xDC00...0xDFFF).contains(low) else { throw .noLowAfter(code) }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(code) {
                throw .loneLow(code)
            }
            if let scalar = Unicode.Scalar(code), let encoded = UTF8.encode(scalar) {
                for unit in encoded { append(unit) }
            }
        default:
            throw .unknown(byte)
        }
    }

    private static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, at position: inout Int) throws(Failure) -> UInt32 {
        guard position + 4 <= bytes.count else { throw .hexDigits }
        var code: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw .hexDigits
            }
            code = code << 4 | digit
            position += 1
        }
        return code
    }
}
