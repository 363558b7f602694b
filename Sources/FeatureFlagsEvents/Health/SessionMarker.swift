import FeatureFlags
import Foundation

/// What a session's marker file holds: which session, since when, which app, and the units and
/// variants it read. A marker found at launch is a session that did not end cleanly.
///
/// The file is a snapshot on its first line (this type as JSON, written atomically by
/// ``SessionHealthMonitor`` when a session begins and at delivery's flushes), followed by one
/// line per read appended since (``Line``): the first read of a flag's variant by a unit in the
/// session is on disk when the read returns, however soon the process dies. A line cut short by
/// a kill has no newline and is not read; the next snapshot folds the lines in. Removed when the
/// session ends cleanly.
struct SessionMarker: Codable, Equatable, Sendable {
    /// The variants one unit read, by flag key: every variant of the flag read in the session,
    /// in the order first read (a flag whose variant changed mid-session has two).
    struct UnitVariants: Codable, Equatable, Sendable {
        /// The targeting key; `nil` for anonymous evaluations.
        var unit: String?
        var variants: [String: [String]]

        init(unit: String?, variants: [String: [String]]) {
            self.unit = unit
            self.variants = variants
        }

        enum CodingKeys: String, CodingKey {
            case unit, variants
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            unit = try container.decodeIfPresent(String.self, forKey: .unit)
            if let all = try? container.decode([String: [String]].self, forKey: .variants) {
                variants = all
            } else {
                // Version 1: one variant per flag.
                variants = try container.decode([String: String].self, forKey: .variants).mapValues { [$0] }
            }
        }

        /// The variants as tracked events carry them (one per flag): the first event holds each
        /// flag's first variant, the second the second variant of the flags that had one, and so
        /// on. Each variant the unit read is on exactly one event.
        var layers: [[String: String]] {
            let depth = variants.values.map(\.count).max() ?? 0
            return (0..<depth).map { layer in
                variants.compactMapValues { $0.count > layer ? $0[layer] : nil }
            }
        }

        /// The variant of each flag read most recently.
        var latest: [String: String] {
            variants.compactMapValues(\.last)
        }
    }

    /// One appended line: a read (`f`, `v`, `u`) or reads left out (`o`), and when (`t`, in
    /// milliseconds since 1970: the session was alive then).
    struct Line: Codable, Equatable, Sendable {
        var f: String?
        var v: String?
        var u: String?
        var o: Int?
        var t: Int64

        /// The line as written: JSON on one line, ending in a newline (built in one buffer:
        /// it is made on the thread of a read).
        var bytes: [UInt8] {
            var line: [UInt8] = []
            line.reserveCapacity(40 + (f?.utf8.count ?? 0) + (u?.utf8.count ?? 0) + (v?.utf8.count ?? 0))
            line.append(UInt8(ascii: "{"))
            if let f { Self.appendMember("f", quoting: f, to: &line) }
            if let u { Self.appendMember("u", quoting: u, to: &line) }
            if let v { Self.appendMember("v", quoting: v, to: &line) }
            if let o {
                line.append(contentsOf: #""o":"#.utf8)
                line.append(contentsOf: String(o).utf8)
                line.append(UInt8(ascii: ","))
            }
            line.append(contentsOf: #""t":"#.utf8)
            line.append(contentsOf: String(t).utf8)
            line.append(contentsOf: "}\n".utf8)
            return line
        }

        /// Appends `"name":"text",`, the text as a JSON string: quotes, backslashes and control
        /// characters escaped.
        static func appendMember(_ name: Unicode.Scalar, quoting text: String, to line: inout [UInt8]) {
            line.append(UInt8(ascii: "\""))
            line.append(UInt8(ascii: name))
            line.append(contentsOf: #"":""#.utf8)
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    line.append(UInt8(ascii: "\\"))
                    line.append(byte)
                case 0..<0x20:
                    line.append(contentsOf: #"\u00"#.utf8)
                    for nibble in [byte >> 4, byte & 0xF] {
                        line.append(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10)
                    }
                default:
                    line.append(byte)
                }
            }
            line.append(contentsOf: #"","#.utf8)
        }
    }

    /// 2: several variants per flag, the bounds in the snapshot, lines appended. Version 1
    /// (one variant per flag, no lines) is still read.
    var version = 2
    /// The session's id (letters, digits, `.`, `_`, `-`; at most 64 bytes).
    var session: String
    /// When it began, in milliseconds since 1970.
    var start: Int64
    /// When the session was last known alive (the snapshot's write or a later line), in
    /// milliseconds since 1970.
    var lastSeen: Int64
    /// When it ended cleanly, if it did and the marker could not be removed.
    var end: Int64?
    var source: FlagEventSource
    /// The units, the one that read a new variant most recently last.
    var units: [UnitVariants]
    /// Units left out past ``SessionHealthMonitor/Configuration/maximumUnits``.
    var omittedUnits: Int
    /// Reads left out past ``SessionHealthMonitor/Configuration/maximumFlagsPerUnit`` or
    /// ``maximumVariantsPerFlag`` (or with a key, variant or unit longer than the server takes).
    var omittedFlags: Int
    /// The bounds the session was recorded with, so that the lines are folded in as they were
    /// counted (`nil` in version 1).
    var maximumUnits: Int?
    var maximumFlagsPerUnit: Int?

    /// The most bytes of a marker file read; a larger one is unreadable. The monitor appends no
    /// line past it (the next snapshot holds the read).
    static let maximumBytes = 1024 * 1024
    /// The most bytes of a flag key, variant, unit or source member: what the flag server takes.
    static let maximumStringBytes = 256
    /// The most units and flags per unit a marker may hold, whatever the configuration said: the
    /// flag server takes at most 256 variants on one event.
    static let maximumUnits = 16
    static let maximumFlagsPerUnit = 256
    /// The most variants of one flag kept per unit and session (each further one is counted in
    /// ``omittedFlags``): a unit's report is at most this many events.
    static let maximumVariantsPerFlag = 8

    /// Whether `id` may name a session (and a file).
    static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64
            && id.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x2E || byte == 0x5F
            }
    }

    static func fits(_ text: String) -> Bool {
        text.utf8.count <= maximumStringBytes
    }

    /// The snapshot line: the marker as JSON, ending in a newline.
    func snapshot() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }

    /// The marker a file holds: its snapshot with the lines after it folded in (a last line
    /// without its newline, cut short by a kill, is left out; a line that cannot be read counts
    /// as an omitted read), or why it cannot be read.
    static func parse(_ data: Data) -> (SessionMarker?, String?) {
        let bytes = [UInt8](data)
        let headerEnd = bytes.firstIndex(of: 0x0A) ?? bytes.endIndex
        var marker: SessionMarker
        do {
            marker = try JSONDecoder().decode(SessionMarker.self, from: Data(bytes[..<headerEnd]))
        } catch {
            return (nil, "not a marker: \(error)")
        }
        if let problem = marker.problem { return (nil, problem) }
        let maximumUnits = min(max(1, marker.maximumUnits ?? 4), Self.maximumUnits)
        let maximumFlags = min(max(1, marker.maximumFlagsPerUnit ?? 64), Self.maximumFlagsPerUnit)
        var position = headerEnd
        let decoder = JSONDecoder()
        while position < bytes.endIndex, let end = bytes[(position + 1)...].firstIndex(of: 0x0A) {
            let text = bytes[(position + 1)..<end]
            position = end
            guard !text.isEmpty else { continue }
            guard let line = try? decoder.decode(Line.self, from: Data(text)) else {
                marker.omittedFlags += 1
                continue
            }
            marker.lastSeen = max(marker.lastSeen, line.t)
            if let flag = line.f, let variant = line.v {
                _ = marker.record(
                    flag: flag, variant: variant, unit: line.u, maximumUnits: maximumUnits, maximumFlags: maximumFlags)
            } else {
                marker.omittedFlags += max(0, min(line.o ?? 1, 1_000_000))
            }
        }
        if let problem = marker.problem { return (nil, problem) }
        return (marker, nil)
    }

    /// Why the marker cannot be reported as it stands, or `nil` when every member is within the
    /// bounds the flag server takes (so its events cannot get a batch refused).
    var problem: String? {
        guard version == 1 || version == 2 else { return "version \(version)" }
        guard Self.isValidID(session) else { return "a session id that is not 1 to 64 letters, digits, '.', '_' or '-'" }
        guard start <= lastSeen, end.map({ $0 >= start }) ?? true else { return "times out of order" }
        guard Self.fits(source.appVersion), Self.fits(source.buildConfiguration), Self.fits(source.platform) else {
            return "a source member longer than \(Self.maximumStringBytes) bytes"
        }
        guard units.count <= Self.maximumUnits, omittedUnits >= 0, omittedFlags >= 0 else { return "too many units" }
        for entry in units {
            guard entry.unit.map(Self.fits) ?? true, entry.variants.count <= Self.maximumFlagsPerUnit else {
                return "a unit too long or with too many flags"
            }
            for (flag, variants) in entry.variants {
                guard !flag.isEmpty, Self.fits(flag), !variants.isEmpty, variants.count <= Self.maximumVariantsPerFlag,
                    variants.allSatisfy(Self.fits)
                else { return "a flag key or variant that is empty or too long, or too many variants of a flag" }
            }
        }
        return nil
    }
}

extension SessionMarker {
    /// What ``record(flag:variant:unit:maximumUnits:maximumFlags:)`` did.
    enum Recorded {
        /// The unit had read this variant of the flag in the session.
        case known
        /// A new variant of the flag for the unit, or a read left out by a bound: what an
        /// appended line replays.
        case changed
        /// Left out because a string is longer than the server takes: not replayable.
        case tooLong
    }

    /// Notes that `unit` read `variant` of `flag`, within the bounds; a unit that read a new
    /// variant becomes the most recent. Folding the appended lines in replays it.
    mutating func record(flag: String, variant: String, unit: String?, maximumUnits: Int, maximumFlags: Int) -> Recorded {
        guard !flag.isEmpty, Self.fits(flag), Self.fits(variant), unit.map(Self.fits) ?? true else {
            omittedFlags += 1
            return .tooLong
        }
        if let index = units.firstIndex(where: { $0.unit == unit }) {
            if let seen = units[index].variants[flag] {
                guard !seen.contains(variant) else { return .known }
                guard seen.count < Self.maximumVariantsPerFlag else {
                    omittedFlags += 1
                    return .changed
                }
            } else if units[index].variants.count >= maximumFlags {
                omittedFlags += 1
                return .changed
            }
            // Taken out of the array before it changes, so its variants are changed in place.
            var entry = units.remove(at: index)
            entry.variants[flag, default: []].append(variant)
            units.append(entry)
        } else {
            if units.count >= maximumUnits {
                units.removeFirst()
                omittedUnits += 1
            }
            units.append(UnitVariants(unit: unit, variants: [flag: [variant]]))
        }
        return .changed
    }
}
