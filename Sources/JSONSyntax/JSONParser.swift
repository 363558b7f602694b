/// A strict RFC 8259 JSON parser that builds a value tree with a ``JSONTreeBuilder``.
///
/// Hand-written rather than built on `JSONSerialization` so that Booleans and numbers never mix
/// (Foundation on Linux returns `NSNumber` for both), integers stay exact, and large files load
/// without bridging (several times faster than `JSONSerialization` plus conversion, with a third
/// of the allocations).
///
/// Stricter than RFC 8259 requires, where the RFC leaves behaviour to the reader, so that every
/// reader built on it agrees and a value never changes silently:
/// - **Duplicate keys** in an object are an error naming the key, not "last one wins": a file with
///   two `"page_size"` entries has no single meaning.
/// - **Integers** (no fraction, no exponent) must fit in `Int` (64 bits); `9223372036854775808`
///   is an error rather than a rounded double or a wrapped integer. Write `9.2e18` when an
///   approximate floating-point value is meant.
/// - **Numbers with a fraction or an exponent** are `Double`s and must be finite and, when not
///   zero, must not round to zero: `1e400` and `1e-400` are errors rather than infinity or `0`.
///
/// Errors carry the line, column and JSON Pointer of the value concerned (``JSONSyntaxError``).
///
/// Shared by the core (`FlagValue`) and the evaluation engine (`JSONValue`), which do not depend
/// on each other. Its code is inlinable so that each builder gets a specialized parser.
public struct JSONParser<Builder: JSONTreeBuilder> {
    /// The value type the builder makes.
    public typealias Value = Builder.Value

    /// Deepest nesting accepted, so hostile input cannot exhaust the stack: input at this depth
    /// parses, and is freed, on a 512 KB secondary thread even in debug builds (150 levels
    /// did not). Flag files nest a few levels; a JSON Logic rule about two per operator.
    @inlinable static var maximumDepth: Int { 100 }

    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline var index = 0
    @usableFromInline var depth = 0
    /// The members of the objects being parsed, innermost last: each object collects its
    /// members here and builds its dictionary once it knows how many there are, so large objects
    /// are never rehashed as they grow, and the scratch storage is reused across objects.
    /// `keyOffset` is where the key starts, so a duplicate can be reported at its place.
    @usableFromInline var pendingMembers: [(key: String, value: Value, keyOffset: Int)] = []
    /// The keys of the objects being read by ``readObject(_:)``, innermost last, kept to find a
    /// duplicate once an object is complete (the same scratch discipline as `pendingMembers`).
    @usableFromInline var pendingKeys: [(key: String, keyOffset: Int)] = []

    @inlinable init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses one JSON document; only whitespace may follow it.
    @inlinable public static func parse<Bytes: Collection<UInt8>>(_ input: Bytes) throws(JSONSyntaxError) -> Value {
        let result: Result<Value, JSONSyntaxError>? = input.withContiguousStorageIfAvailable { buffer in
            parseBuffer(buffer)
        }
        if let result { return try result.get() }
        let copy = Array(input)
        return try copy.withUnsafeBufferPointer { parseBuffer($0) }.get()
    }

    @inlinable
    static func parseBuffer(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<Value, JSONSyntaxError> {
        var parser = JSONParser(bytes: buffer)
        do throws(JSONSyntaxError) {
            parser.skipByteOrderMark()
            parser.skipWhitespace()
            let value = try parser.parseValue()
            parser.skipWhitespace()
            if parser.index < buffer.count {
                throw parser.error("unexpected content after the JSON value")
            }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    /// Parses one JSON document with `read`, which reads its top-level value through the parser
    /// (``parseValue()``, or ``readObject(_:)`` to take an object member by member); only
    /// whitespace may follow it. Limits and errors are those of ``parse(_:)``.
    ///
    /// ```swift
    /// let names = try JSONParser<Builder>.parse(data) { parser throws(JSONSyntaxError) in
    ///     var names: [String] = []
    ///     try parser.readObject { parser, key throws(JSONSyntaxError) in
    ///         names.append(key)
    ///         _ = try parser.parseValue()
    ///     }
    ///     return names
    /// }
    /// ```
    @inlinable public static func parse<Bytes: Collection<UInt8>, Output>(
        _ input: Bytes,
        reading read: (inout JSONParser) throws(JSONSyntaxError) -> Output
    ) throws(JSONSyntaxError) -> Output {
        let result: Result<Output, JSONSyntaxError>? = input.withContiguousStorageIfAvailable { buffer in
            parseBuffer(buffer, reading: read)
        }
        if let result { return try result.get() }
        let copy = Array(input)
        return try copy.withUnsafeBufferPointer { parseBuffer($0, reading: read) }.get()
    }

    @inlinable
    static func parseBuffer<Output>(
        _ buffer: UnsafeBufferPointer<UInt8>,
        reading read: (inout JSONParser) throws(JSONSyntaxError) -> Output
    ) -> Result<Output, JSONSyntaxError> {
        var parser = JSONParser(bytes: buffer)
        do throws(JSONSyntaxError) {
            parser.skipByteOrderMark()
            parser.skipWhitespace()
            let start = parser.index
            let output = try read(&parser)
            precondition(parser.index > start || start == buffer.count, "a JSONParser reader must read the value")
            parser.skipWhitespace()
            if parser.index < buffer.count {
                throw parser.error("unexpected content after the JSON value")
            }
            return .success(output)
        } catch {
            return .failure(error)
        }
    }

    /// Whether the next value is an object.
    @inlinable public var isAtObject: Bool { peek() == UInt8(ascii: "{") }

    /// Reads the object that comes next member by member, without building it: `member` is
    /// called with each key, in document order, and must read that member's value through the
    /// parser it is given (``parseValue()`` or ``readObject(_:)``).
    ///
    /// Checks what ``parseValue()`` checks, with the same errors at the same places: the depth
    /// limit, the syntax, a duplicate key (once the object is complete), and an error inside a
    /// member carries the member's key in its path.
    @inlinable
    public mutating func readObject(
        _ member: (inout JSONParser, String) throws(JSONSyntaxError) -> Void
    ) throws(JSONSyntaxError) {
        guard peek() == UInt8(ascii: "{") else { throw error("expected an object") }
        if try openObject() { return }
        let firstKey = pendingKeys.count
        while true {
            let (key, keyOffset) = try parseMemberKey()
            let valueStart = index
            do {
                try member(&self, key)
            } catch {
                throw error.inside(key: key)
            }
            precondition(index > valueStart, "readObject: the member reader must read the value of \(Self.quoted(key))")
            pendingKeys.append((key, keyOffset))
            if try closesObject() {
                if let duplicate = firstDuplicateKey(from: firstKey) {
                    index = duplicate.keyOffset
                    throw error("duplicate key \(Self.quoted(duplicate.key)) in an object; each key may appear only once")
                }
                while pendingKeys.count > firstKey { pendingKeys.removeLast() }
                return
            }
        }
    }

    /// Where the parser is: the offset of the next byte it reads.
    @inlinable public var offset: Int { index }

    /// Parses the value that comes next onto `tape`, with the checks and errors of
    /// ``parseValue()``, without building an array or dictionary for its arrays and objects.
    ///
    /// - Returns: The index of the value's node in `tape.nodes`.
    @inlinable @discardableResult
    public mutating func parseTape(into tape: inout JSONTape<Value>) throws(JSONSyntaxError) -> Int {
        let root = tape.nodes.count
        try appendValue(to: &tape, key: -1)
        return root
    }

    @inlinable
    mutating func appendValue(to tape: inout JSONTape<Value>, key: Int32) throws(JSONSyntaxError) {
        guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
        let node = tape.nodes.count
        switch bytes[index] {
        case UInt8(ascii: "{"):
            tape.nodes.append(JSONTape.Node(kind: .object, end: 0, key: key))
            var count: Int32 = 0
            try readObject { parser, memberKey throws(JSONSyntaxError) in
                let keyIndex = Int32(tape.keys.count)
                tape.keys.append(memberKey)
                try parser.appendValue(to: &tape, key: keyIndex)
                count += 1
            }
            tape.nodes[node].count = count
        case UInt8(ascii: "["):
            tape.nodes.append(JSONTape.Node(kind: .array, end: 0, key: key))
            if try openArray() { break }
            var count: Int32 = 0
            while true {
                skipWhitespace()
                do {
                    try appendValue(to: &tape, key: -1)
                } catch {
                    throw error.inside(index: Int(count))
                }
                count += 1
                if try closesArray() { break }
            }
            tape.nodes[node].count = count
        default:
            let value = try parseValue()
            tape.nodes.append(JSONTape.Node(kind: .scalar, end: 0, scalar: Int32(tape.scalars.count), key: key))
            tape.scalars.append(value)
        }
        tape.nodes[node].end = Int32(tape.nodes.count)
    }

    /// Enters the object whose `{` is next; `true` when it is empty (its `}` read too).
    @inlinable @inline(__always)
    mutating func openObject() throws(JSONSyntaxError) -> Bool {
        try openContainer(closedBy: UInt8(ascii: "}"))
    }

    /// Enters the array whose `[` is next; `true` when it is empty (its `]` read too).
    @inlinable @inline(__always)
    mutating func openArray() throws(JSONSyntaxError) -> Bool {
        try openContainer(closedBy: UInt8(ascii: "]"))
    }

    /// Enters the object or array whose opening byte is next; `true` when `end` follows at once
    /// (the container is empty, and left).
    @inlinable @inline(__always)
    mutating func openContainer(closedBy end: UInt8) throws(JSONSyntaxError) -> Bool {
        try enterContainer()
        index += 1  // { or [
        skipWhitespace()
        guard peek() == end else { return false }
        index += 1
        depth -= 1
        return true
    }

    /// Reads a member's key and the `:` after it; the key's offset is where a duplicate-key
    /// error points.
    @inlinable @inline(__always)
    mutating func parseMemberKey() throws(JSONSyntaxError) -> (key: String, offset: Int) {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\"") else { throw error("expected a string key in an object") }
        let offset = index
        let key = try parseString()
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else { throw error("expected ':' after the object key \"\(key)\"") }
        index += 1
        skipWhitespace()
        return (key, offset)
    }

    /// Reads what follows a member's value: `false` after a `,`, `true` after the `}` that ends
    /// the object (which is then left).
    @inlinable @inline(__always)
    mutating func closesObject() throws(JSONSyntaxError) -> Bool {
        try closesContainer(UInt8(ascii: "}"))
    }

    /// Reads what follows an array element: `false` after a `,`, `true` after the `]` that ends
    /// the array (which is then left).
    @inlinable @inline(__always)
    mutating func closesArray() throws(JSONSyntaxError) -> Bool {
        try closesContainer(UInt8(ascii: "]"))
    }

    /// Reads what follows a value inside an object or array that `end` (`}` or `]`) closes.
    @inlinable @inline(__always)
    mutating func closesContainer(_ end: UInt8) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: ","):
            index += 1
            return false
        case end:
            index += 1
            depth -= 1
            return true
        default:
            throw error(end == UInt8(ascii: "}") ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array")
        }
    }

    /// The first key of `pendingKeys[first...]`, in document order, that repeats an earlier one:
    /// the one ``parseObject()`` reports. Few keys are compared directly; many are sorted, which
    /// costs a fraction of hashing them all: in each run of equal keys, the second earliest
    /// repeats the earliest, and the answer is the earliest of those.
    @inlinable
    func firstDuplicateKey(from first: Int) -> (key: String, keyOffset: Int)? {
        pendingKeys.withUnsafeBufferPointer { keys in
            if keys.count - first <= 16 {
                // Through the buffer: no key is copied out of the array to be compared.
                for position in (first + 1)..<keys.count {
                    for earlier in first..<position where keys[earlier].key == keys[position].key {
                        return keys[position]
                    }
                }
                return nil
            }
            var order = Array(first..<keys.count)
            order.sort { keys[$0].key < keys[$1].key }
            var firstRepeat = Int.max
            var runStart = 0
            while runStart < order.count {
                var runEnd = runStart + 1
                while runEnd < order.count, keys[order[runEnd]].key == keys[order[runStart]].key { runEnd += 1 }
                if runEnd - runStart > 1 {
                    // The second smallest position of the run.
                    var earliest = Int.max
                    var second = Int.max
                    for position in order[runStart..<runEnd] {
                        if position < earliest {
                            second = earliest
                            earliest = position
                        } else if position < second {
                            second = position
                        }
                    }
                    firstRepeat = min(firstRepeat, second)
                }
                runStart = runEnd
            }
            return firstRepeat == Int.max ? nil : keys[firstRepeat]
        }
    }

    // MARK: - Values

    /// Parses the value that comes next and everything inside it.
    @inlinable
    public mutating func parseValue() throws(JSONSyntaxError) -> Value {
        guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return Builder.string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return Builder.bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return Builder.bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return Builder.null()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character \(describe(bytes[index])), expected a value")
        }
    }

    @inlinable
    mutating func parseObject() throws(JSONSyntaxError) -> Value {
        if try openObject() { return Builder.object([:]) }
        let firstMember = pendingMembers.count
        while true {
            let (key, keyOffset) = try parseMemberKey()
            let value: Value
            do {
                value = try parseValue()
            } catch {
                throw error.inside(key: key)
            }
            pendingMembers.append((key, value, keyOffset))
            if try closesObject() {
                var members = [String: Value](minimumCapacity: pendingMembers.count - firstMember)
                for (key, value, keyOffset) in pendingMembers[firstMember...]
                where members.updateValue(value, forKey: key) != nil {
                    index = keyOffset
                    throw error("duplicate key \(Self.quoted(key)) in an object; each key may appear only once")
                }
                // One by one: `removeSubrange` takes a generic path several times slower.
                while pendingMembers.count > firstMember { pendingMembers.removeLast() }
                return Builder.object(members)
            }
        }
    }

    @inlinable
    mutating func parseArray() throws(JSONSyntaxError) -> Value {
        var elements: [Value] = []
        if try openArray() { return Builder.array(elements) }
        // Room for the short arrays rules and flag files are made of, allocated once.
        elements.reserveCapacity(4)
        while true {
            skipWhitespace()
            do {
                elements.append(try parseValue())
            } catch {
                throw error.inside(index: elements.count)
            }
            if try closesArray() { return Builder.array(elements) }
        }
    }

    @inlinable
    mutating func enterContainer() throws(JSONSyntaxError) {
        depth += 1
        if depth > Self.maximumDepth {
            throw error("nesting deeper than \(Self.maximumDepth) levels")
        }
    }

    @inlinable
    mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of input in a literal, expected '\(literal)'") }
        let pointer = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != pointer[offset] {
            throw error("invalid literal, expected '\(literal)'")
        }
        index += count
    }

    // MARK: - Numbers

    @inlinable
    mutating func parseNumber() throws(JSONSyntaxError) -> Value {
        let start = index
        var isInteger = true
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else { throw error("expected a digit in a number") }
        if first == UInt8(ascii: "0") {
            index += 1
            if let next = peek(), isDigit(next) { throw error("leading zeros are not allowed in numbers") }
        } else {
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard let byte = peek(), isDigit(byte) else { throw error("expected a digit after the decimal point") }
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        if let byte = peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { index += 1 }
            guard let byte = peek(), isDigit(byte) else { throw error("expected a digit in the exponent") }
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger {
            guard let value = Int(text) else {
                index = start
                throw error(
                    "integer \(Self.excerpt(text)) is outside the 64-bit range \(Int.min)...\(Int.max); "
                        + "write it with a fraction or an exponent if an approximate floating-point value is meant")
            }
            return Builder.int(value)
        }
        // A fraction or an exponent. `Double(_:)` rounds correctly, to infinity past the largest
        // double and to zero below the smallest.
        guard let value = Double(text), value.isFinite else {
            index = start
            throw error("number \(Self.excerpt(text)) is too large for a 64-bit floating-point value")
        }
        if value == 0, hasNonZeroSignificand(start..<index) {
            index = start
            throw error("number \(Self.excerpt(text)) is too small for a 64-bit floating-point value; it would become 0")
        }
        return Builder.floatingPoint(value)
    }

    /// Whether the digits before the exponent of the number in `range` include one that is not 0.
    @inlinable
    func hasNonZeroSignificand(_ range: Range<Int>) -> Bool {
        for position in range {
            let byte = bytes[position]
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return false }
            if byte >= UInt8(ascii: "1") && byte <= UInt8(ascii: "9") { return true }
        }
        return false
    }

    /// A number's text for a message, shortened when it is long.
    @inlinable
    static func excerpt(_ text: String) -> String {
        text.utf8.count <= 40 ? text : String(text.prefix(40)) + "…"
    }

    /// A key for a message: quoted as JSON, shortened when it is long.
    @inlinable
    static func quoted(_ key: String) -> String {
        var output = ""
        JSONStringWriter.write(key.count <= 80 ? key : String(key.prefix(80)) + "…", to: &output)
        return output
    }

    @inlinable
    func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    // MARK: - Helpers

    @inlinable
    func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    @inlinable
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
            default: return
            }
        }
    }

    @inlinable
    mutating func skipByteOrderMark() {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    }

    @inlinable
    func describe(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    @inlinable
    func error(_ reason: String) -> JSONSyntaxError {
        var line = 1
        var lineStart = 0
        let end = min(index, bytes.count)
        for position in 0..<end where bytes[position] == UInt8(ascii: "\n") {
            line += 1
            lineStart = position + 1
        }
        return JSONSyntaxError(reason: reason, line: line, column: end - lineStart + 1)
    }
}
