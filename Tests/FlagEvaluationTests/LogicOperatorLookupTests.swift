@testable import FlagEvaluation
import Testing

/// `LogicOperator.named` finds operators through a packed-bytes table; it must answer exactly
/// as looking the name up among the operators' raw values does.
struct LogicOperatorLookupTests {
    @Test(arguments: LogicOperator.allCases)
    func everyOperatorIsFoundByItsName(_ op: LogicOperator) {
        #expect(LogicOperator.named(op.rawValue) == op)
        // A name that differs in one byte, or has one byte more or fewer, is another name.
        let name = op.rawValue
        #expect(LogicOperator.named(name + "x") == nil)
        #expect(LogicOperator.named(String(name.dropLast())) == LogicOperator(rawValue: String(name.dropLast())))
        #expect(LogicOperator.named(name.uppercased()) == LogicOperator(rawValue: name.uppercased()))
    }

    @Test(arguments: [
        "", "var", "$ref", "regex", "IF", "if ", " if", "iff", "==== ", "missing_som", "missing_somee",
        "starts_with_", "a_very_long_operator_name", "fractional\u{0}", "in\u{301}", "é", "ｉｆ",
    ])
    func otherNamesAreNotOperators(_ name: String) {
        #expect(LogicOperator.named(name) == LogicOperator(rawValue: name))
        #expect(LogicOperator.named(name) == nil)
    }

    /// Names that are not contiguous UTF-8 in memory (bridged or substring-made strings take
    /// the same path as any other) and non-ASCII names are compared as strings.
    @Test func nonASCIINamesAreComparedAsStrings() {
        // U+0069 U+0066 written with a combining mark is not "if".
        #expect(LogicOperator.named("i\u{308}f") == nil)
        #expect(LogicOperator.named(String("xin".dropFirst())) == .in)
    }
}
