import ExampleFlags
import FeatureFlags
import FeatureFlagsTesting
import Foundation

/// A temporary directory removed when the value is released.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("feature-flags-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func contents() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: url.path))?.sorted() ?? []
    }
}

/// A small registry for precise resolution tests.
enum TestFlag: String, CaseIterable, FeatureFlagKey {
    case base = "base"
    case child = "child"
    case grandchild = "grandchild"
    case left = "left"
    case right = "right"
    case toggle = "toggle"
    case userOnly = "user_only"
    case buildOnly = "build_only"
    case phaseTwo = "phase_two"
    case phaseFive = "phase_five"
    case betaOnly = "beta_only"

    var metadata: FlagMetadata<TestFlag> {
        switch self {
        case .base: .init("Base")
        case .child: .init("Child", requires: [.base])
        case .grandchild: .init("Grandchild", requires: [.child])
        case .left: .init("Left", conflicts: [.right])
        case .right: .init("Right")
        case .toggle: .init("Toggle", default: true, userTogglable: true, checking: .buildAndUser)
        case .userOnly: .init("User only", userTogglable: true, checking: .userOnly)
        case .buildOnly: .init("Build only", default: true, userTogglable: true, checking: .buildOnly)
        case .phaseTwo: .init("Phase two", phase: 2)
        case .phaseFive: .init("Phase five", phase: 5)
        case .betaOnly: .init("Beta only", phase: 0, enabledIn: [.alpha, .internal])
        }
    }

    static let typedFlags: [any FlagDefinitionConvertible] = [TestConfig.limit, TestConfig.ratio, TestConfig.label, TestConfig.style, TestConfig.policy]
}

enum TestConfig {
    static let limit = TypedFlag<Int>("limit", default: 10, buildDefaults: [.debug: 3])
    static let ratio = TypedFlag<Double>("ratio", default: 0.5)
    static let label = TypedFlag<String>("label", default: "plain", sensitive: true)
    static let style = TypedFlag<ComposerStyle>("style", default: .classic, userTogglable: true)
    static let policy = TypedFlag<RetryPolicy>("policy", default: RetryPolicy(attempts: 3, backoffSeconds: 1))
}

/// Waits for the next element of an iterator; the tests never sleep.
func next<Element: Sendable>(_ iterator: inout AsyncStream<Element>.Iterator) async -> Element? {
    await iterator.next()
}
