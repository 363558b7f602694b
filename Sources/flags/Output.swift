import Foundation

/// Writing to standard output and standard error.
enum Output {
    static func standardOutput(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func standardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    static func error(_ message: String) {
        standardError("error: \(message)\n")
    }

    static func warning(_ message: String) {
        standardError("warning: \(message)\n")
    }
}
