#!/usr/bin/env python3
"""Fails when a target imports a module it does not declare in Package.swift (it would build only
because another module re-exports it, as TimelineEngine re-exports its modules for apps), and
when a library or executable target declares a module it never imports (a dependency built and
linked for nothing). Test targets may declare executables and support modules they only run;
the strategies under Strategies/ share one dependency list and are not checked for the second.
It also fails when a library or executable target imports a module of a higher layer (LAYERS,
the order docs/ARCHITECTURE.md draws), on a target that no layer lists, and when the command
line imports a module of the package other than the façade and the comparison, plugin, server
and HTTP client products (COMMAND_LINE_IMPORTS).

Usage: Tests/check-imports.py   (runs `swift package dump-package`)
"""
import glob
import json
import os
import re
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
package = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=root, capture_output=True, text=True, check=True).stdout)
platform = {"Foundation", "FoundationNetworking", "FoundationEssentials", "Testing", "XCTest", "Dispatch", "Glibc", "Darwin", "os",
            "Synchronization"}
# The layers, lowest first: a module imports modules of its own layer or lower ones only.
LAYERS = [
    ("foundation", {"TimelineEngineSupport", "TimelineEngineCLibXML2", "TimelineEngineCPlugin", "TimelineEngineValueTree", "TimelineEngineJSONText", "TimelineEnginePropertyList", "TimelineEngineJSONSchema",
                    "TimelineEngineLogging", "TimelineEngineHTTPExchange", "TimelineEngineURLSessionHTTP", "TimelineEngineNIOHTTP"}),
    ("strategy kit", {"TimelineEngineStrategyKit"}),
    ("domain", {"TimelineEngineCore", "TimelineEngineSearch", "TimelineEngineFormats", "TimelineEngineRestorationModel", "TimelineEngineCacheModel", "TimelineEngineReachModel", "TimelineEngineSyncModel", "TimelineEngineSyncWire", "TimelineEngineSyncSealing",
                "TimelineEngineConfiguration", "TimelineEngineSessionFormat", "TimelineEnginePositionTracking", "TimelineEngineSimulatedServer"}),
    ("built-in strategies", set()),  # every target under Strategies/
    ("registry", {"TimelineEngineRestoration", "TimelineEngineStrategyPlugins"}),
    ("storage", {"TimelineEngineStore"}),
    ("application", {"TimelineEnginePositionSync", "TimelineEngineLoading", "TimelineEngineSessionReplay", "TimelineEngineSessionSimulation", "TimelineEngineSessionComparison", "TimelineEngineKit"}),
    ("executables", {"TimelineEngineCommands", "TimelineEngineCLI", "TimelineEngineSyncServer"}),
]


# What the command line may import of the package: the façade (which re-exports the library's
# modules), the comparison, plugin and server products, and the HTTP clients it bootstraps.
COMMAND_LINE_IMPORTS = {"TimelineEngineKit", "TimelineEngineSessionComparison", "TimelineEngineSessionReplay", "TimelineEngineSessionSimulation", "TimelineEngineStrategyPlugins", "TimelineEngineSyncServer",
                        "TimelineEngineURLSessionHTTP", "TimelineEngineNIOHTTP"}


def layer_of(target):
    if (target.get("path") or "").startswith("Strategies/"):
        return 3
    for number, (_, modules) in enumerate(LAYERS):
        if target["name"] in modules:
            return number
    return None


layers = {target["name"]: layer_of(target) for target in package["targets"]}
undeclared = 0
unused = 0
upward = 0
for target in package["targets"]:
    name = target["name"]
    default = ("Tests/" if target["type"] == "test" else "Sources/") + name
    path = os.path.join(root, target.get("path") or default)
    declared = set()
    for dependency in target["dependencies"]:
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                declared.add(dependency[kind][0])
    imported = set()
    for source in glob.glob(os.path.join(path, "**", "*.swift"), recursive=True):
        with open(source, encoding="utf-8") as handle:
            for line in handle:
                match = re.match(r"\s*(?:@testable\s+|@_exported\s+|@preconcurrency\s+)?import\s+(\w+)", line)
                if match:
                    imported.add(match.group(1))
    missing = sorted(imported - declared - platform - {name})
    # System libraries are targets too (TimelineEngineCLibXML2); their imports are declared like any other.
    if missing:
        undeclared += len(missing)
        print(f"{name} imports {', '.join(missing)} without declaring it in Package.swift")
    checked = target["type"] in ("regular", "executable") and not (target.get("path") or "").startswith("Strategies/")
    never = sorted(declared - imported) if checked else []
    if never:
        unused += len(never)
        print(f"{name} declares {', '.join(never)} in Package.swift but never imports it")
    # Tests and their support targets (under Tests/) may import from any layer.
    if target["type"] in ("regular", "executable") and not (target.get("path") or "").startswith("Tests/"):
        own = layers[name]
        if own is None:
            upward += 1
            print(f"{name} is in no layer: add it to LAYERS in Tests/check-imports.py and to the module map in docs/ARCHITECTURE.md")
            continue
        if name == "TimelineEngineCommands":
            for module in sorted(set(imported) & set(layers) - COMMAND_LINE_IMPORTS):
                upward += 1
                print(f"TimelineEngineCommands imports {module}: the command line imports the façade (TimelineEngine, which re-exports it) "
                      "and the comparison, plugin and server products only")
        for module in sorted(imported):
            other = layers.get(module)
            if other is not None and other > own:
                upward += 1
                print(f"{name} ({LAYERS[own][0]}) imports {module} ({LAYERS[other][0]}), a higher layer")
print(f"{len(package['targets'])} targets, {undeclared} undeclared imports, {unused} unused dependencies, {upward} imports up a layer")
sys.exit(1 if undeclared or unused or upward else 0)
