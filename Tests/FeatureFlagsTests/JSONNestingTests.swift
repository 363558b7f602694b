import FeatureFlags
import Foundation
import Testing

/// JSON from outside nests at most 100 levels: what the parser accepts parses and is freed on an
/// ordinary secondary thread's 512 KB stack (debug builds included); anything deeper is an error,
/// never a stack overflow.
struct JSONNestingTests {
    static func nested(_ depth: Int) -> String {
        String(repeating: #"{"a":["#, count: depth / 2) + "1" + String(repeating: "]}", count: depth / 2)
    }

    @Test func theDeepestAcceptedInputParsesOnASmallStack() async {
        let parsed = await DependencyOrderTests.onSmallStack { () -> Bool in
            (try? FlagValue(json: Self.nested(100))) != nil
        }
        #expect(parsed)
    }

    @Test func deeperInputIsAnErrorOnASmallStack() async {
        let message = await DependencyOrderTests.onSmallStack { () -> String in
            do {
                _ = try FlagValue(json: Self.nested(100_000))
                return "parsed"
            } catch {
                return "\(error)"
            }
        }
        #expect(message.contains("nesting deeper than 100 levels"))
    }
}
