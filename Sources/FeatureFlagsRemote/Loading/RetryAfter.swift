import Foundation

/// Parses a `Retry-After` header field: delay seconds, an HTTP date (IMF-fixdate, RFC 850 or
/// asctime), or, as OFREP servers may send, an ISO 8601 date-time.
///
/// Whatever the form, the moment is held to ``RemoteDurationLimits/retryAfter`` from `now`: a
/// date in the past means now, and a delay too large for any integer type means 24 hours.
/// `package`: FeatureFlagsEvents' delivery reads the server's `Retry-After` with it too.
package enum RetryAfter {
    /// The moment before which no request may be sent, or `nil` when `value` is not readable.
    package static func date(from value: String, now: Date) -> Date? {
        guard let date = parse(value, now: now) else { return nil }
        return clamped(date, now: now)
    }

    /// `date` held to ``RemoteDurationLimits/retryAfter`` from `now`.
    static func clamped(_ date: Date, now: Date) -> Date {
        now.addingTimeInterval(
            RemoteDurationLimits.clamp(date.timeIntervalSince(now), to: RemoteDurationLimits.retryAfter))
    }

    /// The moment `value` names, before clamping.
    static func parse(_ value: String, now: Date) -> Date? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            // Delay seconds, possibly more digits than any integer holds: a Double saturates.
            let seconds = Double(trimmed) ?? .infinity
            return now.addingTimeInterval(RemoteDurationLimits.clamp(seconds, to: RemoteDurationLimits.retryAfter))
        }
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) { return date }
        }
        let iso = ISO8601DateFormatter()
        if let date = iso.date(from: trimmed) { return date }
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return iso.date(from: trimmed)
    }

    /// `date` as an IMF-fixdate, for tests and servers.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
