import ArgumentParser
import Foundation
import TimelineEngineKit

/// `engine plist convert --format xml1|json|typed-json FILE [-o OUT|-]`.
struct PlistConvertCommand: ParsableCommand {
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case xml1
        case json
        case typedJSON = "typed-json"
    }

    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a property list (or JSON) to xml1, json or typed-json.",
        discussion: """
            xml1        the canonical XML property list (Apple's DOCTYPE, tab indentation) \
            json        plain JSON, as plutil -convert json prints it; dates and data have no
                        JSON form and are an error (use typed-json)
            typed-json  every value as a one-key object ({"integer": "5"}, {"date": …}), so
                        nothing is lost

            The input may be an XML property list or JSON. Unlike plutil, the input file is never \
            overwritten: the result goes to standard output unless -o names a file.

            Examples:
              engine plist convert --format json app.plist --output app.json
              engine plist convert --format xml1 settings.json -o settings.plist
              engine plist convert --format typed-json Info.plist -o -
            """
    )

    @Option(name: .long, help: "Output format: xml1, json or typed-json.")
    var format: Format

    @Option(name: .shortAndLong, help: "Output file, or - for standard output (the default).")
    var output: String = "-"

    @OptionGroup var logging: LoggingOptions

    @Argument(help: "The file to convert.")
    var file: String

    func run() throws {
        let value: Value
        switch DocumentInput.read(file) {
        case .success(let (read, _)):
            value = read
        case .failure(let failure):
            Console.error(failure.message)
            throw failure.unreadable ? EngineExit.usage : EngineExit.invalid
        }
        let text: String
        do {
            switch format {
            case .xml1: text = try PropertyListWriter().write(value)
            case .typedJSON: text = try TypedJSON.encode(value)
            case .json: text = try JSONWriter(style: .compact).write(value) + "\n"
            }
        } catch let error as PropertyListError {
            throw CommandFailure(.invalidInput, "\(file)\(error.location.map { ":\($0.line)" } ?? ""): \(error.message)")
        } catch let error as JSONWriter.UnrepresentableValue {
            throw CommandFailure(
                .invalidInput, "\(file)\(error.location.map { ":\($0.line)" } ?? ""): \(error.description); use --format typed-json to keep it")
        }
        if output == "-" {
            Console.outRaw(text)
            return
        }
        try OutputFile.write(Data(text.utf8), to: output, what: "the converted file")
    }
}
