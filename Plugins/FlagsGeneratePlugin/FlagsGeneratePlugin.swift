import Foundation
import PackagePlugin

/// Generates the flag enum from a manifest in the target on every build.
///
/// Put the manifest among the target's sources as `flags.json` (the enum is `AppFlag`) or
/// `<EnumName>.flags.json` (the enum is `<EnumName>`), and add the plugin to the target:
///
/// ```swift
/// .executableTarget(
///     name: "App",
///     dependencies: [.product(name: "FeatureFlags", package: "swift-feature-flags")],
///     plugins: [.plugin(name: "FlagsGeneratePlugin", package: "swift-feature-flags")]
/// )
/// ```
///
/// In an Xcode project, add it to the app target's "Run Build Tool Plug-ins" build phase and the
/// manifest to the target's files (see `FlagsGeneratePlugin+Xcode.swift`).
@main
struct FlagsGeneratePlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        return Self.commands(
            for: target.sourceFiles.map(\.url), tool: try context.tool(named: "flags").url,
            workDirectory: context.pluginWorkDirectoryURL)
    }

    /// One `flags generate` command per manifest among `files`, for a package target or an
    /// Xcode target alike.
    static func commands(for files: [URL], tool: URL, workDirectory: URL) -> [Command] {
        files.compactMap { file -> Command? in
            let name = file.lastPathComponent
            let enumName: String
            if name == "flags.json" {
                enumName = "AppFlag"
            } else if name.hasSuffix(".flags.json"), name.count > ".flags.json".count {
                enumName = String(name.dropLast(".flags.json".count))
            } else {
                return nil
            }
            let output = workDirectory.appending(path: "Generated-\(enumName)")
            return .buildCommand(
                displayName: "Generating \(enumName).swift from \(name)",
                executable: tool,
                arguments: [
                    "generate", "--manifest", file.path, "--output", output.path, "--enum-name", enumName,
                ],
                inputFiles: [file],
                outputFiles: [output.appending(path: "\(enumName).swift")]
            )
        }
    }
}
