import FlagEvaluation
import FlagServerModel
import Foundation

/// The console's home: the flags that match a query (search, owner, phase, type, tag, due for
/// removal, archived, unused or settled in an environment), sorted, one page at a time, so that a
/// server with ten thousand flags sends a page of ``pageSize`` rows instead of all of them.
struct FlagGrid: Sendable {
    /// How many flags one page of the grid lists.
    static let pageSize = 100

    /// The columns the grid sorts by.
    enum Sort: String, Sendable, CaseIterable {
        case key, owner, phase, removal, type
    }

    /// What the visitor asked for, read from the page's query; every field has a neutral value,
    /// so a link keeps only what differs from it.
    struct Query: Sendable, Hashable {
        var search = ""
        var owner = ""
        var phase = ""
        var type = ""
        var tag = ""
        /// An app version: only flags whose removal target is at or below it.
        var due = ""
        /// Archived flags: hidden (`""`, the default), listed alone (`only`) or with the others (`all`).
        var archived = ""
        /// `unused` or `settled`: only flags in that state of the removal evidence (``FlagEvidence``).
        var lifecycle = ""
        /// The environment whose evidence the grid shows and ``lifecycle`` filters on; "" for the
        /// default (`production`, else the last environment).
        var lifecycleEnvironment = ""
        var sort = Sort.key
        var descending = false
        var page = 1

        init() {}

        /// The query of `form` (a page's URL query or a form's `back` field); unknown sort
        /// columns and page numbers fall back to the defaults.
        init(_ form: ConsoleForm) {
            func field(_ name: String) -> String { (form[name] ?? "").trimmingCharacters(in: .whitespaces) }
            search = field("q")
            owner = field("owner")
            phase = field("phase")
            type = field("type")
            tag = field("tag")
            due = field("due")
            archived = ["only", "all"].contains(field("archived")) ? field("archived") : ""
            let lifecycleText = field("lifecycle")
            lifecycle = Self.lifecycles.contains(lifecycleText) ? lifecycleText : ""
            lifecycleEnvironment = field("in")
            let sortText = field("sort")
            descending = sortText.hasPrefix("-")
            sort = Sort(rawValue: String(sortText.drop { $0 == "-" })) ?? .key
            page = max(1, min(Int(field("page")) ?? 1, 1_000_000))
        }

        /// The evidence states the grid filters on.
        static let lifecycles = [FlagEvidence.State.unused.rawValue, FlagEvidence.State.settled.rawValue]

        /// The fields of the query that differ from the defaults, in a fixed order.
        var fields: [(String, String)] {
            var result: [(String, String)] = []
            for (name, value) in [("q", search), ("owner", owner), ("phase", phase), ("type", type), ("tag", tag), ("due", due),
                ("lifecycle", lifecycle), ("in", lifecycleEnvironment)]
            where !value.isEmpty {
                result.append((name, value))
            }
            if !archived.isEmpty { result.append(("archived", archived)) }
            if sort != .key || descending { result.append(("sort", (descending ? "-" : "") + sort.rawValue)) }
            if page != 1 { result.append(("page", String(page))) }
            return result
        }

        /// The query as a URL query string (without `?`; empty for the defaults).
        var queryString: String {
            fields.map { "\($0.0)=\(ConsoleRoutes.escaped($0.1))" }.joined(separator: "&")
        }

        /// `/console/flags` with this query and `changes` applied.
        func link(_ changes: (inout Query) -> Void) -> String {
            var copy = self
            changes(&copy)
            let query = copy.queryString
            return query.isEmpty ? "/console/flags" : "/console/flags?" + query
        }
    }

    /// The flags that match, all pages.
    let total: Int
    /// The flags of the asked page, in order.
    let flags: [FlagRecord]
    /// The page shown (the asked one, or the last one when it asked past the end).
    let page: Int
    let pageCount: Int

    /// - Parameter evidence: The state of each flag in the query's lifecycle environment; a flag
    ///   without one matches no lifecycle filter.
    init(flags all: some Collection<FlagRecord>, query: Query, evidence: [String: FlagEvidence.State] = [:]) {
        let search = query.search.lowercased()
        let matching = all.filter { flag in
            switch query.archived {
            case "only": if !flag.archived { return false }
            case "all": break
            default: if flag.archived { return false }
            }
            let metadata = flag.metadata
            if !search.isEmpty {
                let fields = [flag.key, metadata.displayName, metadata.owner, metadata.description].compactMap { $0?.lowercased() }
                guard fields.contains(where: { $0.contains(search) }) || Self.tags(of: flag).contains(where: { $0.lowercased() == search })
                else { return false }
            }
            if !query.owner.isEmpty, metadata.owner != query.owner { return false }
            if !query.phase.isEmpty, metadata.phase.map(String.init) != query.phase { return false }
            if !query.type.isEmpty, flag.type.rawValue != query.type { return false }
            if !query.tag.isEmpty, !Self.tags(of: flag).contains(query.tag) { return false }
            if !query.due.isEmpty, !AppVersion.isDue(removalTarget: metadata.removalTarget, at: query.due) { return false }
            if !query.lifecycle.isEmpty, evidence[flag.key]?.rawValue != query.lifecycle { return false }
            return true
        }
        let sorted = Self.sorted(matching, by: query.sort, descending: query.descending)
        total = sorted.count
        pageCount = max(1, (sorted.count + Self.pageSize - 1) / Self.pageSize)
        page = min(query.page, pageCount)
        flags = Array(sorted.dropFirst((page - 1) * Self.pageSize).prefix(Self.pageSize))
    }

    /// `flags` sorted by a column, ties by key ascending so that pages are stable; flags without
    /// a value in the column come last. Each flag's sort value is computed once (a removal target
    /// is parsed as a version once, not at every comparison).
    static func sorted(_ flags: [FlagRecord], by sort: Sort, descending: Bool) -> [FlagRecord] {
        if sort == .key {
            let ascending = flags.sorted { $0.key < $1.key }
            return descending ? ascending.reversed() : ascending
        }
        struct Value {
            var flag: FlagRecord
            var text: String?
            var version: [Int]?
        }
        let values = flags.map { flag -> Value in
            switch sort {
            case .key: Value(flag: flag, text: flag.key)
            case .owner: Value(flag: flag, text: flag.metadata.owner?.lowercased())
            case .phase: Value(flag: flag, version: flag.metadata.phase.map { [$0] })
            case .type: Value(flag: flag, text: flag.type.rawValue)
            case .removal: Value(flag: flag, version: flag.metadata.removalTarget.flatMap(AppVersion.components))
            }
        }
        func before(_ lhs: Value, _ rhs: Value) -> Bool? {
            if let left = lhs.text, let right = rhs.text, left != right { return descending ? left > right : left < right }
            if let left = lhs.version, let right = rhs.version, left != right {
                return descending ? right.lexicographicallyPrecedes(left) : left.lexicographicallyPrecedes(right)
            }
            let leftMissing = lhs.text == nil && lhs.version == nil
            let rightMissing = rhs.text == nil && rhs.version == nil
            if leftMissing != rightMissing { return rightMissing }
            return nil
        }
        return values.sorted { lhs, rhs in before(lhs, rhs) ?? (lhs.flag.key < rhs.flag.key) }.map(\.flag)
    }

    /// The metadata key whose comma-separated value holds a flag's tags: the server's model has
    /// no tag field, and manifests keep teams' own annotations under `x-` keys.
    static let tagsKey = "x-tags"

    /// The flag's tags (from ``tagsKey``), trimmed, without empty ones or repeats, in order.
    static func tags(of flag: FlagRecord) -> [String] {
        guard let text = flag.metadata.custom[tagsKey]?.stringValue else { return [] }
        var seen = Set<String>()
        return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && seen.insert($0).inserted }
    }
}
