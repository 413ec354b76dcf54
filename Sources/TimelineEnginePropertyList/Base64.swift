import Foundation

/// Decodes the base64 text of a `<data>` element. ASCII whitespace anywhere is skipped, as in
/// property lists written with line breaks and indentation; padding is required when the text
/// does not end on a four-character boundary, and nothing may follow it.
enum Base64 {
    private static let table: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        return table
    }()

    enum Failure: Error, Equatable {
        case invalidCharacter(UInt8)
        case badLength
        case dataAfterPadding
    }

    static func decode(_ text: UnsafeBufferPointer<UInt8>) -> Result<Data, Failure> {
        var failure: Failure?
        var produced = 0
        var output = [UInt8](repeating: 0, count: text.count / 4 * 3 + 3)
        output.withUnsafeMutableBufferPointer { out in
            table.withUnsafeBufferPointer { table in
                var quad: UInt32 = 0
                var count = 0
                var padding = 0
                for byte in text {
                    switch byte {
                    case 0x20, 0x09, 0x0A, 0x0D, 0x0C, 0x0B:
                        continue
                    case UInt8(ascii: "="):
                        padding += 1
                        count += 1
                        quad <<= 6
                        if padding > 2 {
                            failure = .badLength
                            return
                        }
                    default:
                        let sextet = table[Int(byte)]
                        if sextet == 0xFF {
                            failure = .invalidCharacter(byte)
                            return
                        }
                        if padding > 0 {
                            failure = .dataAfterPadding
                            return
                        }
                        quad = quad << 6 | UInt32(sextet)
                        count += 1
                    }
                    if count == 4 {
                        out[produced] = UInt8(truncatingIfNeeded: quad >> 16)
                        produced += 1
                        if padding < 2 {
                            out[produced] = UInt8(truncatingIfNeeded: quad >> 8)
                            produced += 1
                        }
                        if padding < 1 {
                            out[produced] = UInt8(truncatingIfNeeded: quad)
                            produced += 1
                        }
                        quad = 0
                        count = 0
                        if padding > 0 { padding = 3 }  // anything but whitespace after this is an error
                    }
                }
                if padding == 3 { padding = 0 }
                if count != 0 || padding != 0 { failure = .badLength }
            }
        }
        if let failure { return .failure(failure) }
        return .success(Data(output[0..<produced]))
    }

    /// Standard base64 with padding, in lines of `lineLength` characters (0: one line).
    static func encode(_ data: Data, lineLength: Int = 0) -> [String] {
        let text = data.base64EncodedString()
        guard lineLength > 0, text.count > lineLength else { return [text] }
        var lines: [String] = []
        var start = text.startIndex
        while start < text.endIndex {
            let end = text.index(start, offsetBy: lineLength, limitedBy: text.endIndex) ?? text.endIndex
            lines.append(String(text[start..<end]))
            start = end
        }
        return lines
    }
}
