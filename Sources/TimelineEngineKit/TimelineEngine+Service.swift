#if ServiceLifecycle
import ServiceLifecycle

/// The engine as a swift-service-lifecycle service (the ServiceLifecycle trait): a
/// `ServiceGroup` runs it beside an app's or a server's other services, and the group's
/// graceful shutdown makes `run()` return once what was saved is written, as `shutdown()` does.
extension TimelineEngine: Service {}
#endif
