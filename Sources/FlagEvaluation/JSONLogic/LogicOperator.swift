/// Every operator the engine knows: the JSON Logic operators flagd's targeting schema allows,
/// plus flagd's `fractional`, `sem_ver`, `starts_with` and `ends_with`.
enum LogicOperator: String, Sendable, CaseIterable {
    case `if`
    case ternary = "?:"
    case equal = "=="
    case strictEqual = "==="
    case notEqual = "!="
    case strictNotEqual = "!=="
    case not = "!"
    case toBoolean = "!!"
    case or
    case and
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case max
    case min
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
    case modulo = "%"
    case map
    case filter
    case reduce
    case all
    case none
    case some
    case merge
    case `in`
    case cat
    case substr
    case missing
    case missingSome = "missing_some"
    case fractional
    case semVer = "sem_ver"
    case startsWith = "starts_with"
    case endsWith = "ends_with"

    // `var` is compiled to ``LogicExpression/variable(_:defaultValue:)`` rather than an operation.
    static let variableName = "var"

    /// The operator named `name`: its UTF-8 bytes packed into two words and looked up in a
    /// small open-addressed table, a few instructions where hashing the string for a
    /// `Dictionary` cost about 300 (a rule names an operator per node).
    static func named(_ name: String) -> LogicOperator? {
        let found = name.utf8.withContiguousStorageIfAvailable { bytes -> LogicOperator?? in
            // Every name is ASCII and at most 15 bytes; anything else is compared as a `String`
            // (whose equality is canonical equivalence, not bytes). `nil` here means "not looked
            // up", `.some(nil)` "looked up and unknown".
            guard bytes.count <= 15, !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            return .some(NameTable.shared.find(NameTable.Key(bytes)))
        }
        if case .some(.some(let result)) = found { return result }
        return byName[name]
    }

    private static let byName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })

    /// The operators by packed name; 64 slots for the 39 names.
    private struct NameTable: Sendable {
        /// Up to 15 ASCII bytes and their count, packed into two words.
        struct Key: Equatable {
            let low: UInt64
            let high: UInt64

            init(_ bytes: UnsafeBufferPointer<UInt8>) {
                var low: UInt64 = 0
                var high = UInt64(bytes.count) << 56
                for index in bytes.indices {
                    if index < 8 {
                        low |= UInt64(bytes[index]) << (8 * UInt64(index))
                    } else {
                        high |= UInt64(bytes[index]) << (8 * UInt64(index - 8))
                    }
                }
                self.low = low
                self.high = high
            }

            var slot: Int {
                let mixed = (low ^ (high &* 0x9E37_79B9_7F4A_7C15)) &* 0xFF51_AFD7_ED55_8CCD
                return Int(truncatingIfNeeded: mixed >> 58)
            }
        }

        static let shared = NameTable()

        private var keys = [Key?](repeating: nil, count: 64)
        private var operators = [LogicOperator](repeating: .if, count: 64)

        private init() {
            for op in LogicOperator.allCases {
                var name = op.rawValue
                let key = name.withUTF8 { Key($0) }
                var slot = key.slot
                while keys[slot] != nil { slot = (slot + 1) & 63 }
                keys[slot] = key
                operators[slot] = op
            }
        }

        func find(_ key: Key) -> LogicOperator? {
            var slot = key.slot
            while let stored = keys[slot] {
                if stored == key { return operators[slot] }
                slot = (slot + 1) & 63
            }
            return nil
        }
    }
}
