import Foundation

/// Classes of library bugs that are known and being fixed. By default every target reports them
/// like any other broken invariant. With `FUZZ_SKIP_KNOWN=1` (`run.sh --skip-known`) a target
/// returns early on inputs of these classes instead, so that a long run can look past them;
/// Fuzz/README.md lists what each class skips.
enum KnownIssues {
    /// Whether `FUZZ_SKIP_KNOWN=1`.
    static let areSkipped = ProcessInfo.processInfo.environment["FUZZ_SKIP_KNOWN"] == "1"

    /// Whether to stop checking this input: it shows a known issue and known issues are skipped.
    static func skip(_ showsKnownIssue: @autoclosure () -> Bool) -> Bool {
        areSkipped && showsKnownIssue()
    }
}
