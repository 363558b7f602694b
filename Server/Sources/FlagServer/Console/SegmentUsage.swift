import FlagEvaluation
import FlagServerModel

/// Which flags and segments of an environment refer to a segment (`{"$ref": "name"}` anywhere
/// in their rule), for the console's segment pages: a segment in use cannot be deleted (the
/// server's validator refuses a `$ref` to a missing segment), and its page says who uses it.
enum SegmentUsage {
    /// Every segment name `rule` refers to directly.
    static func references(in rule: JSONValue) -> Set<String> {
        var names: Set<String> = []
        func walk(_ value: JSONValue) {
            switch value {
            case .object(let members):
                if members.count == 1, case .string(let name)? = members["$ref"] { names.insert(name) }
                for member in members.values { walk(member) }
            case .array(let elements):
                for element in elements { walk(element) }
            default: break
            }
        }
        walk(rule)
        return names
    }

    /// The flags (sorted) whose targeting in `environment` refers to `segment`.
    static func flags(using segment: String, in environment: EnvironmentState) -> [String] {
        environment.settings.compactMap { key, settings in
            settings.targeting.flatMap { references(in: $0).contains(segment) ? key : nil }
        }.sorted()
    }

    /// The other segments (sorted) of `environment` whose rule refers to `segment`.
    static func segments(using segment: String, in environment: EnvironmentState) -> [String] {
        environment.segments.compactMap { key, rule in key != segment && references(in: rule).contains(segment) ? key : nil }.sorted()
    }
}
