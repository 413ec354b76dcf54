import TimelineEngineCommands

// With NIOClient the engine links the Swift runtime and Foundation in on Linux
// (`engineLinkerSettings`), and the static FoundationNetworking that URLSessionClient brings
// cannot link beside them: say so, instead of the linker's hundreds of undefined symbols.
#if os(Linux) && NIOClient && URLSessionClient
#error("NIOClient and URLSessionClient together: the engine cannot link on Linux. Enable one (--traits replaces the default NIOClient).")
#endif

await Engine.runAndExit()
