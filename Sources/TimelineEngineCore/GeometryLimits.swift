/// The ranges the engine accepts for the numbers that files and callers give it: post heights,
/// viewport sizes, scroll offsets, `viewportY` and indexes.
///
/// Every reader (timelines, snapshots, recorded sessions) rejects a value outside them with its
/// file and line, so that no conversion or sum further on can overflow: a million posts of the
/// largest height still add up to an offset that converts to an integer exactly.
public enum GeometryLimits {
    /// The largest height of one post, in points. Heights must also be greater than 0.
    public static let maximumPostHeight = 1_000_000.0
    /// The largest viewport width or height, in points. Sizes must also be greater than 0.
    public static let maximumViewportSize = 1_000_000.0
    /// The largest magnitude of a scroll offset or a `viewportY`, in points.
    public static let maximumOffset = 1_000_000_000_000.0
    /// The largest display index or post count.
    public static let maximumIndex = Int(Int32.max)

    /// Why `value` is not a valid post height, or nil when it is.
    public static func problem(withHeight value: Double) -> String? {
        value > 0 && value <= maximumPostHeight ? nil : "must be greater than 0 and at most \(describe(maximumPostHeight))"
    }

    /// Why `value` is not a valid viewport size, or nil when it is.
    public static func problem(withViewportSize value: Double) -> String? {
        value > 0 && value <= maximumViewportSize ? nil : "must be greater than 0 and at most \(describe(maximumViewportSize))"
    }

    /// Why `value` is not a valid offset or `viewportY`, or nil when it is.
    public static func problem(withOffset value: Double) -> String? {
        abs(value) <= maximumOffset ? nil : "must be between -\(describe(maximumOffset)) and \(describe(maximumOffset))"
    }

    /// Why `value` is not a valid index or count, or nil when it is.
    public static func problem(withIndex value: Double) -> String? {
        value >= 0 && value <= Double(maximumIndex) && value == value.rounded() ? nil : "must be an integer from 0 to \(maximumIndex)"
    }

    /// A limit as people write it: `1000000`, not `1e+06`.
    static func describe(_ limit: Double) -> String {
        String(Int64(limit))
    }
}
