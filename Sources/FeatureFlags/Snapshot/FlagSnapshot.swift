/// Every flag's value at one instant: immutable and `Sendable`.
///
/// Take one for reads that must agree with each other: a screen transition, an animation, or
/// one server request.
///
/// ```swift
/// let snapshot = flags.snapshot
/// if snapshot.isEnabled(.sheetSystem) && snapshot.isEnabled(.commandPicker) { … }
/// ```
///
/// A snapshot taken before the flags were configured holds code defaults, and its reads log
/// the same one warning per flag that ``FeatureFlagManager/isEnabled(_:)`` logs.
///
/// Taking a snapshot and reading it are inlined into the caller and specialized for `Key`: no
/// lock, no allocation, no generic dispatch (see ``FeatureFlagManager/snapshot``).
public struct FlagSnapshot<Key: FeatureFlagKey>: Sendable {
    @usableFromInline
    let table: ResolvedFlagTable
    @usableFromInline
    let caseIndex: FlagCaseIndex<Key>
    /// The engine to report reads to, only when `table` holds the values from before
    /// configuration.
    @usableFromInline
    let unconfiguredEngine: FlagEngine?

    init(table: ResolvedFlagTable, caseIndex: FlagCaseIndex<Key>, engine: FlagEngine? = nil) {
        self.init(table: table, caseIndex: caseIndex, unconfiguredEngine: table.inputs.configuration == nil ? engine : nil)
    }

    @inlinable
    init(table: ResolvedFlagTable, caseIndex: FlagCaseIndex<Key>, unconfiguredEngine: FlagEngine?) {
        self.table = table
        self.caseIndex = caseIndex
        self.unconfiguredEngine = unconfiguredEngine
    }

    /// Whether a flag is on.
    @inlinable
    public func isEnabled(_ flag: Key) -> Bool {
        let index = caseIndex.index(of: flag)
        if let engine = unconfiguredEngine { engine.noteUnconfiguredRead(index) }
        return table.values[index].isTrue
    }

    /// Whether a flag is on: `snapshot[.chatViewRedesign]`.
    @inlinable
    public subscript(flag: Key) -> Bool { isEnabled(flag) }

    /// A typed value; its declared default when the value is not in this registry.
    public func value<Value>(_ flag: TypedFlag<Value>) -> Value {
        guard let index = table.registry.index(of: flag) else { return flag.defaultValue }
        unconfiguredEngine?.noteUnconfiguredRead(index)
        return Self.value(flag, at: index, in: table)
    }

    /// The explanation of a flag's value.
    public func details(_ flag: Key) -> FlagEvaluationDetails {
        table.details(at: caseIndex.index(of: flag))
    }

    /// The configuration the values were resolved for (`nil` before configuration).
    public var buildConfiguration: BuildConfiguration? { table.inputs.configuration }

    /// Every value by key.
    public var values: [String: FlagValue] {
        Dictionary(uniqueKeysWithValues: zip(table.registry.definitions.map(\.key), table.values))
    }

    /// The flags that are on, in declaration order.
    public var enabledFlags: [Key] {
        Key.allCases.filter(isEnabled)
    }

    static func value<Value>(_ flag: TypedFlag<Value>, at index: Int, in table: ResolvedFlagTable) -> Value {
        if let decoded = table.decoded[index] {
            return decoded as? Value ?? flag.defaultValue
        }
        return Value(flagValue: table.values[index]) ?? flag.defaultValue
    }
}

extension FlagSnapshot: Equatable {
    /// Snapshots are equal when every value is.
    public static func == (lhs: FlagSnapshot, rhs: FlagSnapshot) -> Bool {
        lhs.table === rhs.table || lhs.table.values == rhs.table.values
    }
}
