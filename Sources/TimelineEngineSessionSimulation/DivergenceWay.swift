/// How the reader reads a stretch on the second device of a true divergence (`diverged`),
/// before either device hears from the other; each stops short of the first device's place.
enum DivergenceWay: CaseIterable {
    /// On from the place the device opens at, its own old place.
    case on
    /// A flick up to the newest posts (by hand: they were never read, so it is no move back),
    /// then on down from the top. Reading down only.
    case flick
    /// A short first reading: six to eight posts from the device's own place, at least half a
    /// minute.
    case short
}
