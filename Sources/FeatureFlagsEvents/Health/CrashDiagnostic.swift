import Foundation

/// A crash the system diagnosed (MetricKit's `MXCrashDiagnostic` on Apple platforms), in the
/// terms ``SessionHealthMonitor/reportCrashDiagnostics(_:)`` needs: when, and what ended the app.
public struct CrashDiagnostic: Sendable, Hashable {
    /// The start of the interval the diagnostic's payload covers (`timeStampBegin`).
    public var begin: Date
    /// Its end (`timeStampEnd`); the crash happened within.
    public var end: Date
    /// The signal that ended the app (`SIGSEGV` is 11), when known.
    public var signal: Int?
    /// The Mach exception type, when known.
    public var exceptionType: Int?

    /// A diagnostic covering `begin` to `end` (swapped if given in the wrong order).
    public init(begin: Date, end: Date, signal: Int? = nil, exceptionType: Int? = nil) {
        self.begin = min(begin, end)
        self.end = max(begin, end)
        self.signal = signal
        self.exceptionType = exceptionType
    }
}
