import Foundation

/// A merged set of flag definitions in flagd's format, with targeting rules compiled.
///
/// Load one or more sources; a flag defined in several sources comes from the last one.
///
/// ```swift
/// let (definitions, errors) = FlagDefinitions.load([
///     FlagSource(name: "base.flagd.json", data: baseData),
///     FlagSource(name: "overrides.flagd.json", data: overrideData),
/// ])
/// for error in errors { print(error) }
/// let evaluator = FlagEvaluator(definitions: definitions)
/// ```
public struct FlagDefinitions: Sendable {
    /// The flags by key.
    public let flags: [String: DefinedFlag]
    /// The same flags in a table that is cheaper to search (evaluation looks a flag up every time).
    private let index: FlagIndex

    /// An empty set.
    public init() {
        self.init(flags: [:])
    }

    init(flags: [String: DefinedFlag]) {
        self.flags = flags
        self.index = FlagIndex(flags)
    }

    /// The flag with `key`, as `flags[key]` finds it, for the evaluation path.
    func flag(_ key: String) -> DefinedFlag? {
        if let flag = index.flag(key) { return flag }
        // `String` equality is Unicode canonical equivalence: a non-ASCII key may be stored with
        // other bytes than the ones asked for. ASCII keys have one spelling only.
        if key.utf8.contains(where: { $0 >= 0x80 }) { return flags[key] }
        return nil
    }

    /// These definitions without the flags of `removed`, then with every flag of `other` added
    /// (replacing one of the same key), nothing compiled again: a server that recompiles only the
    /// flags a change touched merges them into the definitions it already has.
    ///
    /// ```swift
    /// let (changed, _) = FlagDefinitions.load([FlagSource(name: "change", json: changedFlags)])
    /// let updated = current.merging(changed, removing: ["deleted-flag"])
    /// ```
    public func merging(_ other: FlagDefinitions, removing removed: some Sequence<String>) -> FlagDefinitions {
        var flags = self.flags
        for key in removed { flags[key] = nil }
        flags.merge(other.flags) { _, new in new }
        return FlagDefinitions(flags: flags)
    }

    /// The flag keys, sorted.
    public var keys: [String] { flags.keys.sorted() }

    /// The flag with `key`, if loaded.
    public subscript(key: String) -> DefinedFlag? { flag(key) }

    /// Loads and merges `sources`, later sources overriding earlier ones flag by flag.
    ///
    /// Never fails: a bad flag is reported and skipped (or, for a rule that cannot compile, kept so
    /// that its evaluations report `PARSE_ERROR`), and the other flags load.
    ///
    /// - Returns: The loaded flags, and every problem found, in source order.
    public static func load(_ sources: [FlagSource]) -> (definitions: FlagDefinitions, errors: [FlagDefinitionError]) {
        let (definitions, errors, _) = loadCountingWork(sources)
        return (definitions, errors)
    }

    /// ``load(_:)-([FlagSource])``, also returning how many JSON nodes of rules were compiled
    /// (tests pin that loading stays linear).
    ///
    /// With `throughJSONValue`, each source is parsed into one `JSONValue` tree before its flags
    /// are read, rather than member by member from the bytes: the reference that the
    /// differential tests and the definitions fuzzer compare the default path with (hence
    /// this SPI, which the fuzzing package imports).
    @_spi(Differential) public static func loadCountingWork(
        _ sources: [FlagSource],
        throughJSONValue: Bool = false
    ) -> (definitions: FlagDefinitions, errors: [FlagDefinitionError], compiledNodes: Int) {
        var flags: [String: DefinedFlag] = [:]
        var errors: [FlagDefinitionError] = []
        var compiledNodes = 0
        for source in sources {
            var loader = FlagDefinitionsLoader(sourceName: source.name)
            let loaded = throughJSONValue ? loader.loadThroughJSONValue(source.data) : loader.load(source.data)
            flags.reserveCapacity(flags.count + loaded.count)
            for flag in loaded {
                flags[flag.key] = flag
            }
            errors.append(contentsOf: loader.errors)
            compiledNodes += loader.compiledNodeCount
        }
        return (FlagDefinitions(flags: flags), errors, compiledNodes)
    }

    /// Loads and merges `(name, data)` pairs; see ``load(_:)-([FlagSource])``.
    public static func load(_ sources: [(name: String, data: Data)]) -> (definitions: FlagDefinitions, errors: [FlagDefinitionError]) {
        load(sources.map { FlagSource(name: $0.name, data: $0.data) })
    }

    /// Loads and merges `sources`, refusing anything the flagd schema rejects.
    ///
    /// - Throws: ``FlagDefinitionLoadFailure`` listing every problem, including rules that load
    ///   but do not conform to the schema.
    public static func loadStrictly(_ sources: [FlagSource]) throws(FlagDefinitionLoadFailure) -> FlagDefinitions {
        let (definitions, errors) = load(sources)
        if !errors.isEmpty { throw FlagDefinitionLoadFailure(errors: errors) }
        return definitions
    }
}
