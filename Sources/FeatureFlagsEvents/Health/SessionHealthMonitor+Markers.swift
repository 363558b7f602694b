import FeatureFlags
import Foundation

/// A marker file's name, its content as read back, and the events a marker is reported as.
extension SessionHealthMonitor {
    static func markerName(_ id: String) -> String {
        markerPrefix + id + markerSuffix
    }

    static func sessionID(fromMarkerName name: String) -> String? {
        guard name.hasPrefix(markerPrefix), name.hasSuffix(markerSuffix) else { return nil }
        let id = String(name.dropFirst(markerPrefix.count).dropLast(markerSuffix.count))
        return SessionMarker.isValidID(id) ? id : nil
    }

    static func reportKey(_ id: String) -> String {
        "session:" + id
    }

    /// The marker in `file` (its snapshot and the lines appended after it), or why it cannot be
    /// read: a file larger than `SessionMarker.maximumBytes` is not read past that.
    static func readMarker(_ file: URL) -> (SessionMarker?, String?) {
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            data = try handle.read(upToCount: SessionMarker.maximumBytes + 1) ?? Data()
        } catch {
            return (nil, "\(error)")
        }
        guard data.count <= SessionMarker.maximumBytes else {
            return (nil, "larger than \(SessionMarker.maximumBytes) bytes")
        }
        return SessionMarker.parse(data)
    }

    /// One event per unit (one without a unit when none read a variant), each with its
    /// variants; a unit that read several variants of a flag has one event more per further
    /// variant (``SessionMarker/UnitVariants/layers``), so that the server, which reads one
    /// variant per flag from an event, counts the session for each.
    static func events(
        named name: String, session: String, units: [SessionMarker.UnitVariants], omitted: Int, duration: TimeInterval,
        attributes: [String: FlagValue], time: Date, source: FlagEventSource
    ) -> [FlagEvent] {
        var attributes = attributes
        attributes["session"] = .string(session)
        if omitted > 0 { attributes["omitted"] = .int(omitted) }
        let value = duration.isFinite ? max(0, duration) : nil
        guard !units.isEmpty else {
            return [
                .tracked(
                    TrackedFlagEvent(
                        name: name, value: value, attributes: attributes, unit: nil, variants: [:], time: time, source: source))
            ]
        }
        return units.flatMap { entry in
            entry.layers.map { variants in
                .tracked(
                    TrackedFlagEvent(
                        name: name, value: value, attributes: attributes, unit: entry.unit, variants: variants, time: time,
                        source: source))
            }
        }
    }
}
