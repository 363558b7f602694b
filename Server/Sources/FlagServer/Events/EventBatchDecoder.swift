public import FlagEvaluation
import FlagServerModel
import HTTPTypes

/// Reads the body of `POST /ofrep/v1/ingestion` (the version 1 wire format of the library's
/// `FlagEventBatch`) into an ``EventBatch``, checking every bound of ``EventIngestionOptions``.
///
/// A refusal says what and where: 400 for a body that is not JSON, or whose ids, names or keys
/// hold a control character (U+0000–U+001F, U+007F, U+0080–U+009F: a database or a log line
/// would cut or mangle them); 413 for more events than a batch may hold (the client splits it);
/// 422 for valid JSON that is not a valid batch. Both 400 and 422 list a problem per member at
/// its path (`exposures[3].flag`). Members the format does not name are ignored, so that a newer
/// client's additions do not cost its batches.
public enum EventBatchDecoder {
    /// The most problems one refusal lists (the rest are counted in its message).
    static let maximumProblems = 20

    /// The batch `body` holds, sent with a token of `environment` and received at `receivedAt`
    /// (milliseconds since 1970, the server's clock).
    ///
    /// - Throws: ``APIError`` (400, 413 or 422) naming every problem found, up to 20; 400 when
    ///   one of them is a control character.
    public static func decode(
        _ body: some Collection<UInt8>, environment: String, receivedAt: Int64, options: EventIngestionOptions
    ) throws(APIError) -> EventBatch {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: body)
        } catch {
            throw APIError(
                .badRequest, code: "bad_request", message: "the body is not JSON: \(error)",
                problems: [ValidationError(key: nil, field: "(body)", problem: "not JSON: \(error)")])
        }
        return try decode(json, environment: environment, receivedAt: receivedAt, options: options)
    }

    /// The batch `json` describes; see ``decode(_:environment:receivedAt:options:)-(some Collection<UInt8>,_,_,_)``.
    public static func decode(
        _ json: JSONValue, environment: String, receivedAt: Int64, options: EventIngestionOptions
    ) throws(APIError) -> EventBatch {
        guard case .object(let root) = json else {
            throw invalid([ValidationError(key: nil, field: "(body)", problem: "expected an object, got \(json.typeName)")])
        }
        // Counted before anything else is read: a batch with too many events is 413 however its
        // members look, so that the client splits it rather than dropping it.
        let count = ["exposures", "summaries", "events"].reduce(0) { $0 + (root[$1]?.arrayValue?.count ?? 0) }
        guard count <= options.maximumEvents else {
            throw APIError(
                .contentTooLarge, code: "too_large",
                message: "the batch holds \(count) events; at most \(options.maximumEvents) are taken in one batch: split it",
                problems: [ValidationError(key: nil, field: "(body)", problem: "\(count) events, more than \(options.maximumEvents)")])
        }
        var reader = Reader(options: options, receivedAt: receivedAt)
        let version = reader.integer(root["version"], at: "version", required: true)
        if let version, version != 1 {
            reader.problem("version", "this server reads version 1, got \(version)")
        }
        let id = reader.string(root["batchId"], at: "batchId", required: true, maximumBytes: options.maximumBatchIDBytes, nonEmpty: true)
        var source = EventBatch.EventSource(appVersion: "", buildConfiguration: "", platform: "")
        if let value = root["source"] {
            if case .object(let members) = value {
                source.appVersion = reader.string(members["appVersion"], at: "source.appVersion") ?? ""
                source.buildConfiguration = reader.string(members["buildConfiguration"], at: "source.buildConfiguration") ?? ""
                source.platform = reader.string(members["platform"], at: "source.platform") ?? ""
            } else {
                reader.problem("source", "expected an object, got \(value.typeName)")
            }
        } else {
            reader.problem("source", "missing")
        }
        var dropped = EventBatch.DroppedEvents()
        if let value = root["dropped"], !value.isNull {
            if case .object(let members) = value {
                dropped.exposures = reader.count(members["exposures"], at: "dropped.exposures") ?? 0
                dropped.summaries = reader.count(members["summaries"], at: "dropped.summaries") ?? 0
                dropped.tracked = reader.count(members["tracked"], at: "dropped.tracked") ?? 0
            } else {
                reader.problem("dropped", "expected an object, got \(value.typeName)")
            }
        }
        let exposures = reader.array(root["exposures"], at: "exposures") { reader, item, at in reader.exposure(item, at: at) }
        let summaries = reader.array(root["summaries"], at: "summaries") { reader, item, at in reader.summary(item, at: at) }
        let tracked = reader.array(root["events"], at: "events") { reader, item, at in reader.tracked(item, at: at) }
        guard reader.problems.isEmpty, let id else {
            throw invalid(reader.problems, more: reader.unlisted, malformed: reader.controlCharacters)
        }
        return EventBatch(
            id: id, environment: environment, receivedAt: receivedAt, source: source, dropped: dropped, exposures: exposures,
            summaries: summaries, tracked: tracked)
    }

    /// 422 listing `problems`; 400 when the batch is `malformed` (text holding control characters).
    static func invalid(_ problems: [ValidationError], more: Int = 0, malformed: Bool = false) -> APIError {
        var message = problems.map { "\($0.field): \($0.problem)" }.joined(separator: "; ")
        if more > 0 { message += "; and \(more) more" }
        if malformed {
            return APIError(.badRequest, code: "bad_request", message: "not a valid event batch: " + message, problems: problems)
        }
        return APIError(.unprocessableContent, code: "invalid", message: "not a valid event batch: " + message, problems: problems)
    }

    /// The first control character in `text` (U+0000–U+001F, U+007F, or U+0080–U+009F) and its
    /// byte offset, or `nil`.
    static func controlCharacter(in text: String) -> (scalar: UInt32, offset: Int)? {
        var offset = 0
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if byte < 0x20 || byte == 0x7F { return (UInt32(byte), offset) }
            // U+0080–U+009F are 0xC2 0x80–0x9F in UTF-8.
            if previous == 0xC2, (0x80...0x9F).contains(byte) { return (UInt32(byte), offset - 1) }
            previous = byte
            offset += 1
        }
        return nil
    }

    /// `text` with its control characters written as `\u{…}`, for a path or message that quotes
    /// it.
    static func escapingControlCharacters(_ text: String) -> String {
        guard controlCharacter(in: text) != nil else { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Reads members, collecting problems by path.
    struct Reader {
        let options: EventIngestionOptions
        let receivedAt: Int64
        var problems: [ValidationError] = []
        /// Problems found past ``EventBatchDecoder/maximumProblems``.
        var unlisted = 0
        /// Whether a problem was a control character (the batch is answered 400, not 422).
        var controlCharacters = false

        init(options: EventIngestionOptions, receivedAt: Int64) {
            self.options = options
            self.receivedAt = receivedAt
        }

        mutating func problem(_ field: String, _ problem: String) {
            if problems.count < EventBatchDecoder.maximumProblems {
                problems.append(ValidationError(key: nil, field: field, problem: problem))
            } else {
                unlisted += 1
            }
        }

        /// A string of at most `maximumBytes` UTF-8 bytes (``EventIngestionOptions/maximumStringBytes``
        /// by default); `nil` when absent (a problem if `required`) or refused.
        mutating func string(
            _ value: JSONValue?, at field: String, required: Bool = false, maximumBytes: Int? = nil, nonEmpty: Bool = false
        ) -> String? {
            guard let value, !value.isNull else {
                if required { problem(field, "missing") }
                return nil
            }
            guard case .string(let text) = value else {
                problem(field, "expected a string, got \(value.typeName)")
                return nil
            }
            let limit = maximumBytes ?? options.maximumStringBytes
            if text.utf8.count > limit {
                problem(field, "\(text.utf8.count) bytes, more than \(limit)")
                return nil
            }
            if nonEmpty && text.isEmpty {
                problem(field, "empty")
                return nil
            }
            guard noControlCharacter(in: text, at: field) else { return nil }
            return text
        }

        /// Whether `text` (a string member, or a key of `field`'s object) holds no control
        /// character; a problem of `field` when it does.
        mutating func noControlCharacter(in text: String, at field: String, key: Bool = false) -> Bool {
            guard let (scalar, offset) = EventBatchDecoder.controlCharacter(in: text) else { return true }
            controlCharacters = true
            let code = String(scalar, radix: 16, uppercase: true)
            let padded = String(repeating: "0", count: max(0, 4 - code.count)) + code
            problem(
                field,
                "\(key ? "the key holds" : "holds") the control character U+\(padded) at byte \(offset); ids, names and keys may not hold U+0000–U+001F, U+007F or U+0080–U+009F")
            return false
        }

        /// An integer (a number with no fraction, within 64 bits).
        mutating func integer(_ value: JSONValue?, at field: String, required: Bool = false) -> Int64? {
            guard let value, !value.isNull else {
                if required { problem(field, "missing") }
                return nil
            }
            switch value {
            case .int(let number):
                return Int64(number)
            case .double(let number) where number.isFinite && number.rounded() == number && abs(number) < 9.2e18:
                return Int64(number)
            default:
                problem(field, "expected an integer, got \(value.typeName == "number" ? "\(value)" : value.typeName)")
                return nil
            }
        }

        /// A count: an integer from 0 to `Int32.max`.
        mutating func count(_ value: JSONValue?, at field: String, required: Bool = false) -> Int? {
            guard let number = integer(value, at: field, required: required) else { return nil }
            guard (0...Int64(Int32.max)).contains(number) else {
                problem(field, "\(number) is not a count from 0 to \(Int32.max)")
                return nil
            }
            return Int(number)
        }

        /// A time in milliseconds since 1970 within the accepted age and clock skew.
        mutating func time(_ value: JSONValue?, at field: String) -> Int64? {
            guard let time = integer(value, at: field, required: true) else { return nil }
            let earliest = receivedAt - options.maximumEventAge
            let latest = receivedAt + options.maximumClockSkew
            guard time >= earliest, time <= latest else {
                problem(
                    field,
                    "\(time) is not a time in milliseconds since 1970 within \(options.maximumEventAge / 86_400_000) days before and \(options.maximumClockSkew / 3_600_000) hours after the server's clock (\(receivedAt))")
                return nil
            }
            return time
        }

        /// Any JSON value of at most `maximumBytes` compact bytes and ``EventIngestionOptions/maximumValueDepth`` levels.
        mutating func value(_ value: JSONValue, at field: String, maximumBytes: Int) -> JSONValue? {
            let depth = Self.depth(of: value)
            if depth > options.maximumValueDepth {
                problem(field, "nested \(depth) levels deep, more than \(options.maximumValueDepth)")
                return nil
            }
            let size = value.serialized().utf8.count
            if size > maximumBytes {
                problem(field, "\(size) bytes of JSON, more than \(maximumBytes)")
                return nil
            }
            return value
        }

        /// How deeply `value` nests (a scalar and an empty container are 0).
        static func depth(of value: JSONValue) -> Int {
            switch value {
            case .array(let items): items.isEmpty ? 1 : 1 + (items.map(depth(of:)).max() ?? 0)
            case .object(let members): members.isEmpty ? 1 : 1 + (members.values.map(depth(of:)).max() ?? 0)
            default: 0
            }
        }

        mutating func array<T>(
            _ value: JSONValue?, at field: String, _ item: (inout Reader, JSONValue, String) -> T?
        ) -> [T] {
            guard let value, !value.isNull else { return [] }
            guard case .array(let items) = value else {
                problem(field, "expected an array, got \(value.typeName)")
                return []
            }
            var result: [T] = []
            result.reserveCapacity(items.count)
            for (index, element) in items.enumerated() {
                if let decoded = item(&self, element, "\(field)[\(index)]") { result.append(decoded) }
            }
            return result
        }

        /// The members of an object, or `nil` (and a problem) for anything else.
        mutating func object(_ value: JSONValue, at field: String) -> [String: JSONValue]? {
            guard case .object(let members) = value else {
                problem(field, "expected an object, got \(value.typeName)")
                return nil
            }
            return members
        }

        mutating func exposure(_ item: JSONValue, at field: String) -> EventBatch.Exposure? {
            guard let members = object(item, at: field) else { return nil }
            let before = problems.count + unlisted
            let flag = string(members["flag"], at: field + ".flag", required: true, nonEmpty: true)
            let variant = string(members["variant"], at: field + ".variant") ?? ""
            let reason = string(members["reason"], at: field + ".reason", required: true)
            let revision = string(members["revision"], at: field + ".revision")
            let unit = string(members["unit"], at: field + ".unit")
            let time = time(members["time"], at: field + ".time")
            var served: JSONValue?
            if let value = members["value"] { served = self.value(value, at: field + ".value", maximumBytes: options.maximumValueBytes) }
            guard problems.count + unlisted == before, let flag, let reason, let time else { return nil }
            return EventBatch.Exposure(
                flag: flag, variant: variant, value: served, reason: reason, revision: revision, unit: unit, time: time)
        }

        mutating func summary(_ item: JSONValue, at field: String) -> EventBatch.Summary? {
            guard let members = object(item, at: field) else { return nil }
            let before = problems.count + unlisted
            let flag = string(members["flag"], at: field + ".flag", required: true, nonEmpty: true)
            let variant = string(members["variant"], at: field + ".variant") ?? ""
            let reason = string(members["reason"], at: field + ".reason", required: true)
            let count = count(members["count"], at: field + ".count", required: true)
            let start = time(members["start"], at: field + ".start")
            let end = time(members["end"], at: field + ".end")
            if let start, let end, end < start { problem(field + ".end", "\(end) is before start (\(start))") }
            guard problems.count + unlisted == before, let flag, let reason, let count, let start, let end else { return nil }
            return EventBatch.Summary(flag: flag, variant: variant, reason: reason, count: count, start: start, end: end)
        }

        mutating func tracked(_ item: JSONValue, at field: String) -> EventBatch.Tracked? {
            guard let members = object(item, at: field) else { return nil }
            let before = problems.count + unlisted
            let name = string(
                members["name"], at: field + ".name", required: true, maximumBytes: options.maximumEventNameBytes, nonEmpty: true)
            var number: Double?
            if let value = members["value"], !value.isNull {
                switch value {
                case .int(let integer): number = Double(integer)
                case .double(let double) where double.isFinite: number = double
                default: problem(field + ".value", "expected a finite number, got \(value.typeName == "number" ? "\(value)" : value.typeName)")
                }
            }
            var attributes: [String: JSONValue] = [:]
            if let value = members["attributes"], !value.isNull, let given = object(value, at: field + ".attributes") {
                if given.count > options.maximumAttributes {
                    problem(field + ".attributes", "\(given.count) attributes, more than \(options.maximumAttributes)")
                } else {
                    for (key, attribute) in given.sorted(by: { $0.key < $1.key }) {
                        let place = field + ".attributes." + EventBatchDecoder.escapingControlCharacters(key)
                        if !noControlCharacter(in: key, at: place, key: true) {
                            continue
                        } else if key.isEmpty || key.utf8.count > options.maximumStringBytes {
                            problem(place, "an attribute name must be 1 to \(options.maximumStringBytes) bytes")
                        } else if let checked = self.value(attribute, at: place, maximumBytes: options.maximumAttributeBytes) {
                            attributes[key] = checked
                        }
                    }
                }
            }
            let unit = string(members["unit"], at: field + ".unit")
            var variants: [String: String] = [:]
            if let value = members["variants"], !value.isNull, let given = object(value, at: field + ".variants") {
                if given.count > EventIngestionOptions.maximumVariantsPerEvent {
                    problem(field + ".variants", "\(given.count) flags, more than \(EventIngestionOptions.maximumVariantsPerEvent)")
                } else {
                    for (flag, variant) in given.sorted(by: { $0.key < $1.key }) {
                        let place = field + ".variants." + EventBatchDecoder.escapingControlCharacters(flag)
                        if !noControlCharacter(in: flag, at: place, key: true) {
                            continue
                        } else if flag.isEmpty || flag.utf8.count > options.maximumStringBytes {
                            problem(place, "a flag key must be 1 to \(options.maximumStringBytes) bytes")
                        } else if let text = string(variant, at: place, required: true) {
                            variants[flag] = text
                        }
                    }
                }
            }
            let time = time(members["time"], at: field + ".time")
            guard problems.count + unlisted == before, let name, let time else { return nil }
            return EventBatch.Tracked(name: name, value: number, attributes: attributes, unit: unit, variants: variants, time: time)
        }
    }
}

extension EventIngestionOptions {
    /// The most flags a tracked event's `variants` name (the flags its unit was exposed to in the
    /// session).
    public static let maximumVariantsPerEvent = 256
}
