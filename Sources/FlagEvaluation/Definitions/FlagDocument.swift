import Foundation
internal import JSONSyntax

/// A flag-definition document as ``FlagDefinitionsLoader`` reads it: the top-level members, and
/// the flags of a `"flags"` object with the members of each flag the loader uses.
///
/// Read from the bytes, the document and the flags are taken member by member, so neither the
/// `"flags"` object nor any flag object becomes a `Dictionary` (the values inside a flag still
/// are `JSONValue`s); ``init(_:)`` makes the same document from a `JSONValue` tree, the
/// reference the differential tests compare with.
enum FlagDocument {
    /// The top level is not an object (the loader rejects the document).
    case notAnObject(JSONValue)
    /// A top-level object: its members other than an object-shaped `"flags"`, and the flags,
    /// whose targeting rules may be on `rules`.
    case object(members: [String: JSONValue], flags: Flags, rules: JSONTape<JSONValue>)

    /// The `"flags"` member.
    enum Flags {
        case missing
        /// An object, keyed by flag (document order when read from bytes).
        case object([(key: String, flag: Flag)])
        /// Anything but an object (the flagd.json array form, or a wrong type).
        case other(JSONValue)
    }

    /// One flag of the `"flags"` object or array.
    enum Flag {
        case object(FlagMembers)
        case other(JSONValue)

        init(_ value: JSONValue) {
            if case .object(let members) = value {
                self = .object(FlagMembers(members))
            } else {
                self = .other(value)
            }
        }
    }

    /// The members of a flag object that the loader reads; the others are checked as JSON and
    /// dropped.
    ///
    /// A class, so that the loader sorts and passes flags around by reference: as a struct of
    /// five values, each copy retained and released them all (about a tenth of a 10,000-flag load).
    final class FlagMembers {
        // Written only while the flag is read, before the object is shared: no dynamic
        // exclusivity check is needed.
        @exclusivity(unchecked) var state: JSONValue?
        @exclusivity(unchecked) var variants: Variants?
        @exclusivity(unchecked) var defaultVariant: JSONValue?
        @exclusivity(unchecked) var metadata: JSONValue?
        @exclusivity(unchecked) var targeting: Targeting?

        init() {}

        convenience init(_ members: [String: JSONValue]) {
            self.init()
            for (name, value) in members {
                set(name, value)
            }
        }

        func set(_ name: String, _ value: JSONValue) {
            switch name {
            case "state": state = value
            case "variants": variants = Variants(value)
            case "defaultVariant": defaultVariant = value
            case "metadata": metadata = value
            case "targeting": targeting = .value(value)
            default: break
            }
        }
    }

    /// A flag's `"variants"` member.
    enum Variants {
        /// An object, as names and values (document order when read from bytes): no
        /// `Dictionary` is built for the few variants a flag has.
        case pairs([(name: String, value: JSONValue)])
        /// Anything but an object.
        case other(JSONValue)

        init(_ value: JSONValue) {
            if case .object(let members) = value {
                self = .pairs(members.map { (name: $0.key, value: $0.value) })
            } else {
                self = .other(value)
            }
        }
    }

    /// A flag's `"targeting"` member.
    enum Targeting {
        case value(JSONValue)
        /// The rule at `root` of the document's `rules` tape, and where its JSON text is in the
        /// document's bytes (the flag's ``DefinedFlag/targetingJSON`` is parsed from them when
        /// asked for).
        case tape(root: Int, text: Range<Int>)
    }

    /// Reads a document from its bytes, with the limits and errors of ``JSONValue/init(parsing:)-(Bytes)``.
    ///
    /// - Throws: The ``JSONParseError`` that parsing the bytes as a `JSONValue` throws.
    init(reading data: Data) throws(JSONParseError) {
        do {
            self = try JSONParser<JSONValueTreeBuilder>.parse(data) { parser throws(JSONSyntaxError) in
                try Self.readDocument(&parser)
            }
        } catch {
            throw JSONParseError(reason: error.reasonWithPath, line: error.line, column: error.column)
        }
    }

    /// The same document from a parsed `JSONValue` tree.
    init(_ document: JSONValue) {
        guard case .object(var members) = document else {
            self = .notAnObject(document)
            return
        }
        let flags: Flags
        switch members.removeValue(forKey: "flags") {
        case nil:
            flags = .missing
        case .object(let entries)?:
            flags = .object(entries.map { (key: $0.key, flag: Flag($0.value)) })
        case let other?:
            flags = .other(other)
        }
        self = .object(members: members, flags: flags, rules: JSONTape())
    }

    private static func readDocument(_ parser: inout JSONParser<JSONValueTreeBuilder>) throws(JSONSyntaxError) -> FlagDocument {
        guard parser.isAtObject else { return .notAnObject(try parser.parseValue()) }
        var members: [String: JSONValue] = [:]
        var flags = Flags.missing
        var rules = JSONTape<JSONValue>()
        try parser.readObject { parser, key throws(JSONSyntaxError) in
            if key == "flags", parser.isAtObject {
                flags = .object(try readFlags(&parser, rules: &rules))
            } else {
                let value = try parser.parseValue()
                if key == "flags" {
                    flags = .other(value)
                } else {
                    members[key] = value
                }
            }
        }
        return .object(members: members, flags: flags, rules: rules)
    }

    private static func readFlags(
        _ parser: inout JSONParser<JSONValueTreeBuilder>,
        rules: inout JSONTape<JSONValue>
    ) throws(JSONSyntaxError) -> [(key: String, flag: Flag)] {
        var entries: [(key: String, flag: Flag)] = []
        try parser.readObject { parser, key throws(JSONSyntaxError) in
            if parser.isAtObject {
                let flag = FlagMembers()
                try parser.readObject { parser, name throws(JSONSyntaxError) in
                    if name == "variants", parser.isAtObject {
                        var pairs: [(name: String, value: JSONValue)] = []
                        // Room for the usual two to four variants, allocated once.
                        pairs.reserveCapacity(4)
                        try parser.readObject { parser, variant throws(JSONSyntaxError) in
                            pairs.append((variant, try parser.parseValue()))
                        }
                        flag.variants = .pairs(pairs)
                    } else if name == "targeting" {
                        // Onto the tape: compiling the rule from it builds no dictionary per
                        // operator.
                        let start = parser.offset
                        let root = try parser.parseTape(into: &rules)
                        flag.targeting = .tape(root: root, text: start..<parser.offset)
                    } else {
                        flag.set(name, try parser.parseValue())
                    }
                }
                entries.append((key, .object(flag)))
            } else {
                entries.append((key, .other(try parser.parseValue())))
            }
        }
        return entries
    }
}
