#if canImport(Darwin)
import Darwin
import Foundation

extension SharedFlagsFile {
    /// The file in the App Group container `identifier`, under `Library/Application Support`.
    ///
    /// `nil` on iOS, tvOS, watchOS and visionOS when the app or extension does not have the App
    /// Group entitlement `identifier`; macOS returns a container even then (writing to it fails
    /// in a sandboxed app).
    ///
    /// ```swift
    /// let file = SharedFlagsFile(appGroup: "group.com.example.app")
    /// ```
    public init?(appGroup identifier: String, fileName: String = SharedFlagsFile.defaultFileName) {
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: identifier)
        else { return nil }
        self.init(
            directory: container.appendingPathComponent("Library/Application Support", isDirectory: true),
            fileName: fileName)
    }
}

extension SharedFlagReader {
    /// A reader of the file in the App Group container `identifier` (see
    /// ``SharedFlagsFile/init(appGroup:fileName:)``); `nil` without the entitlement.
    public init?(appGroup identifier: String, fileName: String = SharedFlagsFile.defaultFileName) {
        guard let file = SharedFlagsFile(appGroup: identifier, fileName: fileName) else { return nil }
        self.init(file: file)
    }
}
#endif
