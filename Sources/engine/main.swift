import EngineCommands

await Engine.runAndExit()
