import Synchronization

/// The source of ``FlagRegistry/identity``.
private let registryIdentities = Atomic<Int>(0)

/// The validated, ordered set of flag definitions that resolution works over.
///
/// Building a registry checks every declaration once: unique keys, defaults of the declared
/// type that are finite and pass the flag's range and validation, dependencies and conflicts
/// that name known Boolean flags, no flag both requiring and conflicting with another, and no
/// dependency cycles.
///
/// ```swift
/// let registry = try FlagRegistry(AppFlag.self)
/// ```
public struct FlagRegistry: Sendable {
    /// The definitions, in registry order (enum cases first, then typed values).
    public let definitions: [FlagDefinition]
    /// Position of each key in ``definitions``.
    let indexByKey: [String: Int]
    /// For each flag, the positions of the flags it requires.
    let requiredIndices: [[Int]]
    /// For each flag, the positions of the flags it conflicts with (both directions).
    let conflictingIndices: [[Int]]
    /// Boolean flags with relations, ordered so that every flag comes after the flags it requires.
    let dependencyOrder: [Int]
    /// Distinguishes this registry from every other built in the process, for the positions
    /// typed flags remember.
    @usableFromInline
    let identity: Int

    /// Builds and validates a registry from definitions.
    ///
    /// - Throws: ``FlagRegistryError`` naming the first problem found.
    public init(_ definitions: [FlagDefinition]) throws(FlagRegistryError) {
        // The loops read fields in place (`definitions[index].key`) rather than binding whole
        // definitions, which would copy each one: a measurable share of building a registry of
        // thousands of flags.
        var indexByKey: [String: Int] = [:]
        indexByKey.reserveCapacity(definitions.count)
        // Through a buffer pointer, fields read in place: an `Array` element passed on is copied
        // whole (every reference in a definition retained and released).
        try definitions.withUnsafeBufferPointer { (definitions) throws(FlagRegistryError) in
            for index in definitions.indices {
                let key = definitions[index].key
                guard !key.isEmpty else { throw FlagRegistryError(kind: .emptyKey(index: index)) }
                guard Self.isWellFormed(key) else { throw FlagRegistryError(kind: .malformedKey(key)) }
                guard indexByKey.updateValue(index, forKey: key) == nil else {
                    throw FlagRegistryError(kind: .duplicateKey(key))
                }
                try Self.checkDefaults(of: definitions[index])
            }
        }

        var required = Array(repeating: [Int](), count: definitions.count)
        var conflicting = Array(repeating: [Int](), count: definitions.count)
        for index in definitions.indices
        where !definitions[index].requires.isEmpty || !definitions[index].conflicts.isEmpty {
            let definition = definitions[index]
            func resolve(_ other: String, relation: String) throws(FlagRegistryError) -> Int {
                guard other != definition.key else {
                    throw FlagRegistryError(kind: .selfReference(key: definition.key, relation: relation))
                }
                guard let otherIndex = indexByKey[other] else {
                    throw FlagRegistryError(
                        kind: .unknownReference(key: definition.key, relation: relation, missing: other))
                }
                guard definition.type == .boolean, definitions[otherIndex].type == .boolean else {
                    throw FlagRegistryError(
                        kind: .nonBooleanRelation(key: definition.key, relation: relation, other: other))
                }
                return otherIndex
            }
            for other in definition.requires {
                let otherIndex = try resolve(other, relation: "requires")
                if !required[index].contains(otherIndex) { required[index].append(otherIndex) }
            }
            for other in definition.conflicts {
                let otherIndex = try resolve(other, relation: "conflicts with")
                if required[index].contains(otherIndex) {
                    throw FlagRegistryError(kind: .requiresAndConflicts(key: definition.key, other: other))
                }
                if !conflicting[index].contains(otherIndex) { conflicting[index].append(otherIndex) }
                if !conflicting[otherIndex].contains(index) { conflicting[otherIndex].append(index) }
            }
        }
        for (index, others) in required.enumerated() {
            for other in others where conflicting[index].contains(other) {
                throw FlagRegistryError(
                    kind: .requiresAndConflicts(key: definitions[index].key, other: definitions[other].key))
            }
        }

        self.definitions = definitions
        self.indexByKey = indexByKey
        self.requiredIndices = required
        self.conflictingIndices = conflicting
        self.dependencyOrder = try Self.dependencyOrder(required: required, definitions: definitions)
        self.identity = registryIdentities.add(1, ordering: .relaxed).newValue
    }

    /// Builds and validates the registry of an enum of flags and its typed values.
    ///
    /// Build it once and share it: a ``FeatureFlagManager`` created with
    /// ``FeatureFlagManager/init(_:registry:)`` and a remote loader can use the same one.
    public init<Key: FeatureFlagKey>(_ keys: Key.Type) throws(FlagRegistryError) {
        // Closures rather than key paths (`map(\.definition)`), which a generic context
        // instantiates on every call.
        let typedFlags = Key.typedFlags
        var definitions: [FlagDefinition] = []
        definitions.reserveCapacity(Key.allCases.count + typedFlags.count)
        for key in Key.allCases { definitions.append(key.definition) }
        for flag in typedFlags { definitions.append(flag.definition) }
        try self.init(definitions)
    }

    /// Whether this is the registry of `Key`: its flags are `Key`'s cases followed by its
    /// typed values, in order, by key.
    func isRegistry<Key: FeatureFlagKey>(of keys: Key.Type) -> Bool {
        let typedFlags = Key.typedFlags
        guard count == Key.allCases.count + typedFlags.count else { return false }
        var index = 0
        for key in Key.allCases {
            guard definitions[index].key == key.rawValue else { return false }
            index += 1
        }
        for flag in typedFlags {
            guard definitions[index].key == flag.definition.key else { return false }
            index += 1
        }
        return true
    }

    /// The number of flags.
    public var count: Int { definitions.count }

    /// The position of `key`, or `nil` when the registry has no such flag.
    public func index(ofKey key: String) -> Int? { indexByKey[key] }

    /// The position of a typed flag, remembered in the flag so that repeated reads from the same
    /// registry do not hash its key.
    @inlinable
    public func index<Value>(of flag: TypedFlag<Value>) -> Int? {
        let remembered = flag.position.word.load(ordering: .relaxed)
        if remembered >= 0, remembered >> 32 == identity {
            return remembered & 0xFFFF_FFFF
        }
        return rememberIndex(of: flag)
    }

    @usableFromInline
    func rememberIndex<Value>(of flag: TypedFlag<Value>) -> Int? {
        guard let index = indexByKey[flag.key] else { return nil }
        flag.position.word.store(identity << 32 | index, ordering: .relaxed)
        return index
    }

    /// The definition for `key`, or `nil` when the registry has no such flag.
    public func definition(forKey key: String) -> FlagDefinition? {
        indexByKey[key].map { definitions[$0] }
    }

    /// Checks that the code default and every build default are values the flag accepts.
    @inline(__always)
    private static func checkDefaults(of definition: borrowing FlagDefinition) throws(FlagRegistryError) {
        // Fields read once: `definition.accepting(_:)` would copy the whole definition per call.
        let key = definition.key
        let type = definition.type
        let range = definition.range
        let check = definition.check
        let isSensitive = definition.isSensitive
        if let range, range.valueType != type {
            throw FlagRegistryError(kind: .rangeTypeMismatch(key: key, type: type, range: range.description))
        }
        func shown(_ value: FlagValue) -> String { isSensitive ? "<REDACTED>" : value.jsonString }
        let defaultValue = definition.defaultValue
        if case .failure(let rejection) = FlagDefinition.accepting(
            defaultValue, type: type, range: range, check: check, isSensitive: isSensitive)
        {
            throw FlagRegistryError(
                kind: rejection.isTypeMismatch
                    ? .defaultTypeMismatch(key: key, type: type, value: shown(defaultValue))
                    : .invalidDefault(key: key, configuration: nil, reason: rejection.description))
        }
        let buildDefaults = definition.buildDefaults
        guard !buildDefaults.isEmpty else { return }
        for configuration in BuildConfiguration.allCases {
            guard let value = buildDefaults[configuration],
                case .failure(let rejection) = FlagDefinition.accepting(
                    value, type: type, range: range, check: check, isSensitive: isSensitive)
            else { continue }
            throw FlagRegistryError(
                kind: rejection.isTypeMismatch
                    ? .buildDefaultTypeMismatch(
                        key: key, configuration: configuration, type: type, value: shown(value))
                    : .invalidDefault(key: key, configuration: configuration, reason: rejection.description))
        }
    }

    /// Depth-first topological order of the flags that take part in dependencies, ties in
    /// declaration order; throws the first cycle found.
    ///
    /// Iterative, with an explicit stack, so that a long `requires` chain (tens of thousands of
    /// flags, as generated registries can have) cannot overflow the thread's stack.
    private static func dependencyOrder(
        required: [[Int]], definitions: [FlagDefinition]
    ) throws(FlagRegistryError) -> [Int] {
        enum Mark { case unvisited, visiting, done }
        var marks = Array(repeating: Mark.unvisited, count: required.count)
        var order: [Int] = []
        // The path from the root being visited: each flag with the position of the next flag it
        // requires that is still to be visited.
        var path: [(index: Int, next: Int)] = []

        for root in required.indices where definitions[root].type == .boolean && marks[root] == .unvisited {
            marks[root] = .visiting
            path.append((root, 0))
            while let top = path.last {
                let (index, next) = top
                guard next < required[index].count else {
                    path.removeLast()
                    marks[index] = .done
                    order.append(index)
                    continue
                }
                path[path.count - 1].next = next + 1
                let other = required[index][next]
                switch marks[other] {
                case .done:
                    continue
                case .visiting:
                    let start = path.firstIndex { $0.index == other } ?? 0
                    let cycle = (path[start...].map(\.index) + [other]).map { definitions[$0].key }
                    throw FlagRegistryError(kind: .dependencyCycle(cycle))
                case .unvisited:
                    marks[other] = .visiting
                    path.append((other, 0))
                }
            }
        }
        return order
    }

    /// No comma and no white space at either end, judged by Unicode scalars (a combining mark
    /// after a space must not hide it).
    static func isWellFormed(_ key: String) -> Bool {
        // ASCII keys (nearly all) are judged by their bytes: looking up a scalar's white-space
        // property costs hundreds of instructions, a third of building a large registry. A
        // comma byte is always the comma scalar in UTF-8; other non-ASCII keys take the scalar path.
        var key = key
        let judged = key.withUTF8 { bytes -> Bool? in
            guard let first = bytes.first, let last = bytes.last else { return false }
            var seen: UInt8 = 0
            for byte in bytes {
                if byte == UInt8(ascii: ",") { return false }
                seen |= byte
            }
            guard seen < 0x80 else { return nil }
            return !isASCIIWhiteSpace(first) && !isASCIIWhiteSpace(last)
        }
        if let judged { return judged }
        let scalars = key.unicodeScalars
        guard !scalars.contains(",") else { return false }
        guard let first = scalars.first, let last = scalars.last else { return false }
        return !first.properties.isWhitespace && !last.properties.isWhitespace
    }

    /// The ASCII characters with Unicode's White_Space property: tab, line feed, vertical tab,
    /// form feed, carriage return and space.
    private static func isASCIIWhiteSpace(_ byte: UInt8) -> Bool {
        (0x09...0x0D).contains(byte) || byte == 0x20
    }
}
