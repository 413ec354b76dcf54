import TimelineEngineValueTree

/// `Network`: how timelines are refreshed from their source.
public struct NetworkSettings: ConfigurationSection {
    public static let name = "Network"
    public static let title = "Network"
    public static let help =
        "How timelines are refreshed from their source: the retry policy, the request timeout, the deadline of a whole refresh, and how a post the cache lacks is reached."

    /// The retry policy, as written.
    @ComponentSetting(
        "Policy", title: "Retry policy", kind: "network",
        help:
            "Whether a failed refresh is tried again: NoRetry (one request, the server-friendly default) or ExponentialBackoff (MaxAttempts, BaseDelay, MaxDelay; full jitter; Retry-After is honoured). The cached timeline stands whichever way a refresh fails."
    )
    public var policy = ComponentSpec(name: "NoRetry")

    /// Seconds one request may take.
    @Setting(
        "RequestTimeout", title: "Request timeout", above: 0, maximum: 600,
        help: "Seconds one request may take, from sending it to the last byte of the answer.")
    public var requestTimeout: Double = 15

    /// Seconds a whole refresh may take, the reach for the reader's post included.
    @Setting(
        "FetchDeadline", title: "Fetch deadline", above: 0, maximum: 3600,
        help:
            "Seconds a whole refresh may take: its requests, their retries and the reach for the reader's post. Once it has passed no request is sent, and the posts fetched so far are kept."
    )
    public var fetchDeadline: Double = 60

    /// How a post the cache lacks is reached, as written (a name alone reads as a spec without
    /// parameters).
    @ComponentSetting(
        "Reach", title: "Reach strategy", kind: "reach",
        help:
            "How a post to restore that the cache lacks (a synced position, or one evicted) is fetched from the timeline's source before restoring: PostWindow (the post and the page below it by id; from the top within MaxRequests where the API cannot page by post), CacheOnly (no request), OnePage (Ice Cubes' one page), TopPages (the Bluesky prototype's six pages from the top)."
    )
    public var reach = ComponentSpec(name: "PostWindow")

    public init() {}
}
