import Foundation
import JSONText
import ValueTree

enum JSONTextReading {
    static func read(_ text: String) throws -> Value {
        try JSONReader().read(Data(text.utf8))
    }
}
