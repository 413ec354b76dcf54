/// The height of a post whose real height is unknown, estimated from its text.
///
/// A post is laid out as a header (avatar, name, time) of 56 points plus 20 points per line of
/// text, counting 45 characters per line and every explicit line break, plus 16 points of
/// padding: `72 + 20 × lines`. A post without text is 72 points. The figures are those of a
/// typical phone feed cell at the default text size; apps that know real heights should pass
/// them, since restoring to the pixel needs them.
public enum HeightEstimate {
    public static let base = 72.0
    public static let lineHeight = 20.0
    public static let charactersPerLine = 45

    public static func height(forText text: String?) -> Double {
        guard let text, !text.isEmpty else { return base }
        var lines = 0
        var lineLength = 0
        for character in text {
            if character.isNewline {
                lines += 1 + (lineLength > 0 ? (lineLength - 1) / charactersPerLine : 0)
                lineLength = 0
            } else {
                lineLength += 1
            }
        }
        lines += lineLength > 0 ? 1 + (lineLength - 1) / charactersPerLine : 0
        return base + lineHeight * Double(max(1, lines))
    }
}
