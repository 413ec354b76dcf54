import Foundation
import Testing
import TimelineEngineStrategyPlugins
import TimelineEngineSupport
import TimelineEngineSyncModel

/// The deadline on plugin calls, in process: a call that overruns is reported once, with its
/// plugin and call; one within the deadline is not.
@Suite("Plugin watchdog", .timeLimit(.minutes(10)))
struct PluginWatchdogTests {
    /// The overruns reported.
    // @unchecked: `overruns` is read and written under `lock` only.
    final class Reports: @unchecked Sendable {
        let lock = NSLock()
        var overruns: [PluginWatchdog.Overrun] = []
    }

    @Test("a call past the deadline is reported once, naming the plugin and the call; a quick one is not")
    func overrun() async throws {
        let reports = Reports()
        // Other tests in this process call plugins too: only this test's calls are looked at.
        PluginWatchdog.install(limit: 0.3) { overrun in
            guard overrun.path.hasPrefix("/watchdog-test/") else { return }
            reports.lock.withLock { reports.overruns.append(overrun) }
        }
        await OffPool.run {
            PluginWatchdog.watch("/watchdog-test/quick.so", "timeline_plugin_make") {}
            PluginWatchdog.watch("/watchdog-test/slow.so", "timeline_plugin_propose") {
                Thread.sleep(forTimeInterval: 1.2)  // off-pool: OffPool's own queue
            }
        }
        let seen = reports.lock.withLock { reports.overruns }
        #expect(seen == [PluginWatchdog.Overrun(path: "/watchdog-test/slow.so", call: "timeline_plugin_propose", limit: 0.3)])
        #expect(seen.first?.message == "/watchdog-test/slow.so: error: timeline_plugin_propose did not return within 0.3 s")
        #expect(PluginWatchdog.Overrun(path: "p.so", call: "dlopen", limit: 10).message == "p.so: error: dlopen did not return within 10 s")
    }
}
