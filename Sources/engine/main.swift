import EngineCommands

Engine.runAndExit()
