#if canImport(XcodeProjectPlugin)
import Foundation
import PackagePlugin
import XcodeProjectPlugin

/// The same generation for an app target of an Xcode project: Xcode hands the plugin the
/// target's input files instead of a package target's sources.
extension FlagsGeneratePlugin: XcodeBuildToolPlugin {
    func createBuildCommands(context: XcodePluginContext, target: XcodeTarget) throws -> [Command] {
        Self.commands(
            for: target.inputFiles.map(\.url), tool: try context.tool(named: "flags").url,
            workDirectory: context.pluginWorkDirectoryURL)
    }
}
#endif
