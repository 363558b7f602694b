import ArgumentParser
import FeatureFlags
import FlagManifest
import FlagServerClient
import FlagTooling

/// `--manifest FILE`.
struct ManifestOption: ParsableArguments {
    @Option(name: .long, help: "The flag manifest (a flagd flag-definition JSON file).")
    var manifest: String

    func load() throws(ToolingError) -> (Manifest, FlagRegistry) {
        try Manifest.load(path: manifest)
    }
}

/// `--manifest`, `--overrides` and `--configuration`, for the override commands.
struct OverrideOptions: ParsableArguments {
    @OptionGroup var manifest: ManifestOption

    @Option(name: .long, help: "The JSON file of local overrides (created when needed).")
    var overrides: String

    @Option(name: .long, help: "The build configuration to resolve for: debug, alpha, internal or release.")
    var configuration: BuildConfiguration = .debug

    func session() throws(ToolingError) -> OverrideSession {
        let (manifest, registry) = try self.manifest.load()
        let session = try OverrideSession(
            manifest: manifest, registry: registry, overridesPath: overrides, configuration: configuration)
        for warning in session.warnings { Output.warning(warning) }
        return session
    }
}

/// `--format text|json`.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text
    case json
}

extension BuildConfiguration: ExpressibleByArgument {
    /// The configuration named `argument` (its name or an alias such as `dev`); `nil` for an unknown name.
    public init?(argument: String) {
        self.init(name: argument)
    }

    /// The configurations' raw values, for `--help`.
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}
