import FeatureFlags
import Foundation
import Testing

/// The registry orders dependencies without recursion, so long `requires` chains cannot
/// overflow a thread's stack.
struct DependencyOrderTests {
    /// `f0` requires `f1`, which requires `f2`, … : the first flag visited has the whole chain
    /// beneath it.
    static func chain(_ count: Int, closingCycle: Bool = false) -> [FlagDefinition] {
        (0..<count).map { index in
            let next = index + 1 < count ? ["f\(index + 1)"] : (closingCycle ? ["f0"] : [])
            return FlagDefinition(key: "f\(index)", type: .boolean, default: .bool(true), requires: next)
        }
    }

    /// Runs `body` on a new thread with a 512 KB stack and waits for it without sleeping.
    static func onSmallStack<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.stackSize = 512 * 1024
            thread.start()
        }
    }

    @Test func aChainOf30000FlagsBuildsOnA512KBStack() async throws {
        let result = await Self.onSmallStack { () -> Swift.Result<Int, FlagRegistryError> in
            do throws(FlagRegistryError) {
                return .success(try FlagRegistry(Self.chain(30_000)).count)
            } catch {
                return .failure(error)
            }
        }
        #expect(try result.get() == 30_000)
    }

    @Test func aLongChainResolvesWithEveryRequirementApplied() throws {
        let registry = try FlagRegistry(Self.chain(30_000))
        let engine = FlagEngine(registry: registry)
        #expect(engine.value(forKey: "f0") == .bool(true))
        #expect(engine.value(forKey: "f29999") == .bool(true))

        var definitions = Self.chain(30_000)
        definitions[29_999].defaultValue = .bool(false)
        let off = FlagEngine(registry: try FlagRegistry(definitions))
        #expect(off.value(forKey: "f0") == .bool(false), "the end of the chain is off, so every flag before it is")
        #expect(off.details(forKey: "f29998").message?.contains("requires 'f29999'") == true)
    }

    @Test func aCycleAtTheEndOfALongChainIsReportedWithItsMembers() async {
        let description = await Self.onSmallStack { () -> String? in
            do throws(FlagRegistryError) {
                _ = try FlagRegistry(Self.chain(30_000, closingCycle: true))
                return nil
            } catch {
                return error.keys.count == 30_001 && error.keys.first == "f0" && error.keys.last == "f0"
                    ? "cycle of every flag" : error.description
            }
        }
        #expect(description == "cycle of every flag")
    }

    @Test func aShortCycleIsReportedFromWhereItCloses() {
        let definitions = [
            FlagDefinition(key: "root", type: .boolean, default: .bool(false), requires: ["a"]),
            FlagDefinition(key: "a", type: .boolean, default: .bool(false), requires: ["b"]),
            FlagDefinition(key: "b", type: .boolean, default: .bool(false), requires: ["c", "x"]),
            FlagDefinition(key: "x", type: .boolean, default: .bool(false)),
            FlagDefinition(key: "c", type: .boolean, default: .bool(false), requires: ["a"]),
        ]
        #expect {
            try FlagRegistry(definitions)
        } throws: { error in
            (error as? FlagRegistryError)?.keys == ["a", "b", "c", "a"]
                && "\(error)".contains("a → b → c → a")
        }
    }

    @Test func requirementsComeBeforeTheFlagsThatNeedThem() throws {
        // Declared needing-first, with a diamond: d needs b and c, both need a.
        let definitions = [
            FlagDefinition(key: "d", type: .boolean, default: .bool(true), requires: ["b", "c"]),
            FlagDefinition(key: "b", type: .boolean, default: .bool(true), requires: ["a"]),
            FlagDefinition(key: "c", type: .boolean, default: .bool(true), requires: ["a"]),
            FlagDefinition(key: "a", type: .boolean, default: .bool(false)),
        ]
        let engine = FlagEngine(registry: try FlagRegistry(definitions))
        for key in ["b", "c", "d"] {
            #expect(engine.value(forKey: key) == .bool(false), "\(key)")
        }
    }
}
