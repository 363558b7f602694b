import Synchronization

extension FlagEngine {
    /// The build configuration the process's flags were last configured as, by any engine;
    /// `nil` before the first ``configure(_:)``.
    ///
    /// What a SwiftUI gate that finds no flags at all in its environment decides by, as it has
    /// no manager of its own to ask (see ``FeatureGateDecision``).
    public static var lastConfiguredBuildConfiguration: BuildConfiguration? {
        let stored = Int(configuredBuild.load(ordering: .acquiring))
        return stored == 0 ? nil : BuildConfiguration.allCases[stored - 1]
    }

    static func noteConfigured(_ configuration: BuildConfiguration) {
        let position = BuildConfiguration.allCases.firstIndex(of: configuration) ?? 0
        configuredBuild.store(UInt8(position + 1), ordering: .releasing)
    }

    /// 0 before any configuration, else the position in `BuildConfiguration.allCases` plus one.
    private static let configuredBuild = Atomic<UInt8>(0)
}
