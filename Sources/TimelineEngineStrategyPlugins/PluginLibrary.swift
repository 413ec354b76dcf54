import Foundation
import TimelineEngineCPlugin
import TimelineEngineJSONText
import TimelineEngineStrategyKit
import TimelineEngineValueTree

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loaded plugin library: the five entry points of the C ABI, checked. It stays loaded for the
/// life of the process, since its strategies may be running anywhere.
// @unchecked: the handle and the entry points are set once in init and never change; the ABI asks plugins to be callable from any thread.
final class PluginLibrary: @unchecked Sendable {
    typealias VersionFunction = @convention(c) () -> UInt32
    typealias DescribeFunction = @convention(c) () -> UnsafePointer<CChar>?
    typealias MakeFunction =
        @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int64) -> UnsafeMutableRawPointer?
    typealias ProposeFunction =
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafePointer<timeline_plugin_request>?,
            UnsafeMutablePointer<timeline_plugin_candidate>?
        ) -> Int32
    typealias FreeFunction = @convention(c) (UnsafeMutableRawPointer?) -> Void

    /// The ABI version this engine loads.
    static let abiVersion = UInt32(TIMELINE_PLUGIN_ABI_VERSION)
    static let symbols = [
        "timeline_plugin_abi_version", "timeline_plugin_describe", "timeline_plugin_make",
        "timeline_plugin_propose", "timeline_plugin_free",
    ]

    let path: String
    private let handle: UnsafeMutableRawPointer
    let describe: DescribeFunction
    let make: MakeFunction
    let propose: ProposeFunction
    let free: FreeFunction

    /// Opens the library at `path` and checks its ABI version; on any problem the library is
    /// closed again and the error names the file.
    init(path: String) throws(PluginError) {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else { throw PluginError(path: path, "no such file") }
        // A pipe or a device would make dlopen wait or read without end.
        if let problem = FileData.regularFileProblem(atPath: path) { throw PluginError(path: path, problem) }
        // An absolute path, so that dlopen never searches the library path for a bare name.
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        guard let handle = PluginWatchdog.watch(path, "dlopen", { dlopen(absolute, RTLD_NOW | RTLD_LOCAL) }) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            throw PluginError(path: path, "not a loadable shared library (\(Self.shortened(reason, path: absolute)))")
        }
        var found: [UnsafeMutableRawPointer] = []
        for symbol in Self.symbols {
            guard let address = dlsym(handle, symbol) else {
                dlclose(handle)
                throw PluginError(path: path, "not a TimelineEngine plugin: the symbol \(symbol) is missing")
            }
            found.append(address)
        }
        let version = PluginWatchdog.watch(path, "timeline_plugin_abi_version") { unsafeBitCast(found[0], to: VersionFunction.self)() }
        guard version == Self.abiVersion else {
            dlclose(handle)
            throw PluginError(path: path, "built for plugin ABI version \(version); this engine loads version \(Self.abiVersion)")
        }
        self.handle = handle
        describe = unsafeBitCast(found[1], to: DescribeFunction.self)
        make = unsafeBitCast(found[2], to: MakeFunction.self)
        propose = unsafeBitCast(found[3], to: ProposeFunction.self)
        free = unsafeBitCast(found[4], to: FreeFunction.self)
    }

    /// Closes a library none of whose strategies were registered.
    func close() {
        dlclose(handle)
    }

    /// dlerror repeats the path; the error already names it.
    private static func shortened(_ reason: String, path: String) -> String {
        reason.hasPrefix(path + ": ") ? String(reason.dropFirst(path.count + 2)) : reason
    }

    /// The describe JSON, read.
    func description() throws(PluginError) -> Value {
        guard let text = PluginWatchdog.watch(path, "timeline_plugin_describe", describe) else {
            throw PluginError(path: path, "timeline_plugin_describe returned NULL")
        }
        do {
            return try JSONReader().read(Data(String(cString: text).utf8))
        } catch {
            throw PluginError(path: path, "timeline_plugin_describe returned invalid JSON: \(error.description)")
        }
    }

    /// An instance of strategy `name` with these parameters (JSON), or the plugin's reason.
    func instance(of name: String, parameters: Value.Dictionary) throws(StrategyError) -> PluginInstance {
        let json: String
        do {
            json = try JSONWriter(style: .compact).write(Value(.dictionary(parameters)))
        } catch {
            throw StrategyError("its parameters cannot be written as JSON: \(error)")
        }
        let capacity = 512
        var reason = [CChar](repeating: 0, count: capacity)
        let handle = PluginWatchdog.watch(path, "timeline_plugin_make") {
            reason.withUnsafeMutableBufferPointer { buffer in make(name, json, buffer.baseAddress, Int64(capacity)) }
        }
        guard let handle else {
            let text = CText.string(reason)
            throw StrategyError(text.isEmpty ? "the plugin could not make it" : text)
        }
        return PluginInstance(library: self, handle: handle)
    }
}
