import Foundation

/// Whole seconds since 1970 as a 64-bit number, for the stamps in the names of files (and
/// entries) moved aside.
///
/// `Int(date.timeIntervalSince1970)` traps on a 32-bit `Int` (Apple Watch's arm64_32) from
/// January 2038, when the count passes `Int32.max`, and on any platform for a date beyond
/// `Int64`'s range. These conversions never trap: they round down, and a value that does not fit
/// comes back `nil` (``seconds(_:as:)``) or clamped (``seconds(_:)``).
package enum UnixTimestamp {
    /// `date`'s whole seconds since 1970, rounded down, as `Stamp` when it fits; `nil` when it
    /// does not (after January 2038 as `Int32`) or is not a number.
    package static func seconds<Stamp: FixedWidthInteger>(_ date: Date, as _: Stamp.Type) -> Stamp? {
        Stamp(exactly: date.timeIntervalSince1970.rounded(.down))
    }

    /// `date`'s whole seconds since 1970 as a 64-bit number, rounded down; a date beyond
    /// `Int64`'s range gives its nearest end, and a date that is not a number gives 0.
    package static func seconds(_ date: Date) -> Int64 {
        if let seconds = seconds(date, as: Int64.self) { return seconds }
        let interval = date.timeIntervalSince1970
        if interval.isNaN { return 0 }
        return interval < 0 ? .min : .max
    }
}
