@_exported import ValueTree
