/// Checks on a decimal number's text that its `Double` value cannot show.
public enum DecimalText {
    /// True when the text's digits are not all zero, yet its value rounded to zero: `1e-400`
    /// underflows, while `0.0e5` is plainly zero. Such a number is rejected rather than read as 0.
    public static func underflows<Bytes: Collection>(_ text: Bytes, value: Double) -> Bool where Bytes.Element == UInt8 {
        guard value == 0 else { return false }
        for byte in text {
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return false }
            if byte >= UInt8(ascii: "1") && byte <= UInt8(ascii: "9") { return true }
        }
        return false
    }
}
