import Foundation

/// Checks the targets' invariants. A broken invariant prints what broke and aborts, so that
/// libFuzzer saves the input as a crash. (The same helper as `FeatureFlagsFuzzer`'s.)
enum Invariant {
    /// Aborts with `message` unless `condition` holds.
    static func require(
        _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
        file: StaticString = #fileID, line: UInt = #line
    ) {
        guard !condition() else { return }
        fail(message(), file: file, line: line)
    }

    /// Aborts with `message`.
    static func fail(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
        FileHandle.standardError.write(Data("INVARIANT VIOLATED (\(file):\(line)): \(message)\n".utf8))
        abort()
    }
}
