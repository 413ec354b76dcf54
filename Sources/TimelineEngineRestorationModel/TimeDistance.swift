/// A time distance as explanations write it: seconds under 2 minutes, minutes under 2 hours,
/// hours beyond (`45 s`, `12 min`, `3 h`).
public enum TimeDistance {
    public static func describe(_ seconds: Double) -> String {
        if seconds < 120 { return "\(Int(seconds.rounded())) s" }
        if seconds < 7200 { return "\(Int((seconds / 60).rounded())) min" }
        return "\(Int((seconds / 3600).rounded())) h"
    }
}
