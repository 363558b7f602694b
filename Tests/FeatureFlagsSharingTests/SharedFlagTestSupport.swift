import FeatureFlags
import FeatureFlagsSharing
import FeatureFlagsTesting
import Foundation

/// A small registry with what sharing must carry: a variant, an override, a typed value with a
/// range, and a sensitive value.
enum SharedFlag: String, CaseIterable, FeatureFlagKey {
    case darkMode = "dark_mode"
    case checkout = "checkout"
    case widgetsRedesign = "widgets_redesign"

    static let pageSize = TypedFlag<Int>("page_size", default: 20, range: 1...100)
    static let apiToken = TypedFlag<String>("api_token", default: "none", sensitive: true)
    static let typedFlags: [any FlagDefinitionConvertible] = [pageSize, apiToken]

    var metadata: FlagMetadata<SharedFlag> {
        switch self {
        case .darkMode: FlagMetadata("Dark mode")
        case .checkout: FlagMetadata("Checkout")
        case .widgetsRedesign: FlagMetadata("Widgets redesign", default: true)
        }
    }
}

/// A directory standing in for the App Group container, removed when released.
final class Container: Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("ff-shared-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    var file: SharedFlagsFile { SharedFlagsFile(directory: url) }

    var reader: SharedFlagReader<SharedFlag> { SharedFlagReader(directory: url) }

    func contents() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: url.path))?.sorted() ?? []
    }

    func text() throws -> String { try String(contentsOf: file.url, encoding: .utf8) }

    func write(_ text: String) throws { try Data(text.utf8).write(to: file.url) }
}

extension FeatureFlagManager where Key == SharedFlag {
    /// The app's side: an override, a remote value with a variant, typed overrides.
    static func app() -> FeatureFlagManager<SharedFlag> {
        .testing(
            .debug, overrides: [.darkMode: true],
            values: ["page_size": 50, "api_token": "s3cret-token"],
            remote: RemoteFlagValues(
                ["checkout": RemoteFlagValue(true, variant: "treatment", reason: .split)], source: "test"))
    }
}
