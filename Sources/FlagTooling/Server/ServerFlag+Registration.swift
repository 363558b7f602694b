import FeatureFlags
import FlagServerClient

extension ServerFlag {
    /// The definition `flags push` writes for this flag of the app's over the server's `current`
    /// one: the app's contract (type, metadata, code default) on top of what the server keeps.
    ///
    /// The server's variants are kept, values and names: operators add variants for rollouts
    /// and experiments, and environments serve them. A variant of the app's is added only when
    /// no variant of the server's has its value (under its own name, or `name-2`, `name-3`… when
    /// the name is taken by another value), and the code default names the variant holding its
    /// value. A flag that is new, or whose type differs (a forced type change), is written as the
    /// app declares it. The flag's own metadata (``Metadata/custom``) is the server's with the
    /// app's keys set over it: a push sets the manifest's `x-` annotations and keeps every other
    /// key (flagd metadata an import brought, tags set in the console), whatever the type.
    ///
    /// ```swift
    /// // server: page_size {"default": 20, "large": 100}; code: page_size default 100
    /// ServerFlag(manifestFlag).registration(over: server).variants   // unchanged
    /// ServerFlag(manifestFlag).registration(over: server).defaultVariant   // "large"
    /// ```
    public func registration(over current: ServerFlag?) -> ServerFlag {
        guard let current else { return self }
        var result = self
        result.metadata.custom = current.metadata.custom.merging(metadata.custom) { _, code in code }
        guard current.type == type else { return result }
        var variants = current.variants
        var names: [String: String] = [:]
        for (name, value) in self.variants.sorted(by: { $0.key < $1.key }) {
            let comparable = value.comparableNumbers
            // The same name first, then the server's code default, then the first by name.
            let candidates = [name] + [current.defaultVariant].compactMap { $0 } + current.variants.keys.sorted()
            if let existing = candidates.first(where: { current.variants[$0]?.comparableNumbers == comparable }) {
                names[name] = existing
                continue
            }
            var free = name
            var suffix = 2
            while variants[free] != nil {
                free = "\(name)-\(suffix)"
                suffix += 1
            }
            variants[free] = value
            names[name] = free
        }
        result.variants = variants
        result.defaultVariant = defaultVariant.map { names[$0] ?? $0 }
        return result
    }

    /// ``registration(over:)`` for each of the app's flags, over the server's flag of its key.
    public static func registrations(_ code: [ServerFlag], over server: [ServerFlag]) -> [ServerFlag] {
        let current = Dictionary(server.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        return code.map { $0.registration(over: current[$0.key]) }
    }
}

extension FlagValue {
    /// The value with every integral double written as an integer, at any depth, for comparing
    /// JSON numbers by value (JSON does not keep `30.0` apart from `30`, and the server answers
    /// either as `30`).
    var comparableNumbers: FlagValue {
        switch self {
        case .double(let value): Int(exactly: value).map(FlagValue.int) ?? self
        case .array(let elements): .array(elements.map(\.comparableNumbers))
        case .object(let members): .object(members.mapValues(\.comparableNumbers))
        case .bool, .int, .string, .null: self
        }
    }
}
