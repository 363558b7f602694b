import FeatureFlags
import Foundation

/// The flags an app published, as an extension, a widget or a watch app reads them: immutable,
/// `Sendable`, read without network.
///
/// ```swift
/// let flags = SharedFlagReader<AppFlag>(directory: container).read()
/// if flags.isEnabled(.chatViewRedesign) { … }
/// let pageSize = flags.value(AppConfig.pageSize)
/// ```
///
/// Values are the app's, overrides and user preferences included. A flag the file does not hold
/// (the app had not published, published from an older build, withheld a sensitive value, or
/// wrote a value this build's declaration refuses) reads as its code default; ``status`` and
/// ``entry(forKey:)`` say which.
public struct SharedFlagSnapshot<Key: FeatureFlagKey>: Sendable {
    /// A flag's published value and where it came from in the app.
    public struct Entry: Sendable, Hashable, CustomStringConvertible {
        /// The value the app resolved.
        public let value: FlagValue
        /// The winning layer in the app.
        public let layer: FlagLayer
        /// The remote provider's variant, when the remote layer won.
        public let variant: String?
        /// Whether the flag is marked sensitive: its descriptions show `<REDACTED>`.
        public let isSensitive: Bool

        /// `checkout = "b" [remote, variant b]`, the value `<REDACTED>` for a sensitive flag.
        public var description: String {
            let shown = isSensitive ? "<REDACTED>" : value.jsonString
            return "\(shown) [\(layer)\(variant.map { ", variant \($0)" } ?? "")]"
        }
    }

    /// Whether the file was read, and if not, why.
    public let status: SharedFlagsStatus
    /// The publication's revision: grows by one each time the app publishes different flags;
    /// 0 when nothing was read.
    public let revision: UInt64
    /// When the app published, if it did.
    public let publishedAt: Date?
    /// The build configuration the app resolved for.
    public let buildConfiguration: BuildConfiguration?
    /// The sensitive flags the app did not share; they read as code defaults.
    public let withheldKeys: [String]
    /// Published values this build's declarations refuse (a type or range that changed); they
    /// read as code defaults.
    public let refusedKeys: [String]

    let registry: FlagRegistry
    /// By registry position; `nil` for a flag read as its code default.
    let entries: [Entry?]

    init(
        status: SharedFlagsStatus, registry: FlagRegistry, revision: UInt64 = 0, publishedAt: Date? = nil,
        buildConfiguration: BuildConfiguration? = nil, entries: [Entry?]? = nil, withheldKeys: [String] = [],
        refusedKeys: [String] = []
    ) {
        self.status = status
        self.registry = registry
        self.revision = revision
        self.publishedAt = publishedAt
        self.buildConfiguration = buildConfiguration
        self.entries = entries ?? Array(repeating: nil, count: registry.count)
        self.withheldKeys = withheldKeys
        self.refusedKeys = refusedKeys
    }

    /// Whether a flag is on.
    public func isEnabled(_ flag: Key) -> Bool {
        guard let index = registry.index(ofKey: flag.rawValue) else { return false }
        return (entries[index]?.value ?? registry.definitions[index].defaultValue).boolValue ?? false
    }

    /// Whether a flag is on: `flags[.chatViewRedesign]`.
    public subscript(flag: Key) -> Bool { isEnabled(flag) }

    /// A typed value; its declared default when the app did not publish one this build accepts.
    public func value<Value>(_ flag: TypedFlag<Value>) -> Value {
        guard let index = registry.index(of: flag), let entry = entries[index] else { return flag.defaultValue }
        return Value(flagValue: entry.value) ?? flag.defaultValue
    }

    /// The value by key: the published one, or the code default; `nil` for a key this build
    /// does not declare.
    public func value(forKey key: String) -> FlagValue? {
        guard let index = registry.index(ofKey: key) else { return nil }
        return entries[index]?.value ?? registry.definitions[index].defaultValue
    }

    /// The published value of a flag with its layer and variant; `nil` when the flag reads as
    /// its code default.
    public func entry(forKey key: String) -> Entry? {
        registry.index(ofKey: key).flatMap { entries[$0] }
    }

    /// The published value of a flag with its layer and variant; `nil` when the flag reads as
    /// its code default.
    public func entry(_ flag: Key) -> Entry? { entry(forKey: flag.rawValue) }
}

extension SharedFlagSnapshot: CustomStringConvertible {
    /// `SharedFlagSnapshot(published, revision 4, 30 of 32 flags published)`; no values.
    public var description: String {
        let published = entries.count { $0 != nil }
        return "SharedFlagSnapshot(\(status), revision \(revision), \(published) of \(entries.count) flags published)"
    }
}
