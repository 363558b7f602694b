import FlagEvaluation
import Foundation

/// The console's home: the flags that match a query (search, owner, phase, type, tag, due for
/// removal), sorted, one page at a time, so that a server with ten thousand flags sends a page of
/// ``pageSize`` rows instead of all of them.
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
            let sortText = field("sort")
            descending = sortText.hasPrefix("-")
            sort = Sort(rawValue: String(sortText.drop { $0 == "-" })) ?? .key
            page = max(1, min(Int(field("page")) ?? 1, 1_000_000))
        }

        /// The fields of the query that differ from the defaults, in a fixed order.
        var fields: [(String, String)] {
            var result: [(String, String)] = []
            for (name, value) in [("q", search), ("owner", owner), ("phase", phase), ("type", type), ("tag", tag), ("due", due)]
            where !value.isEmpty {
                result.append((name, value))
            }
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

    init(flags all: some Collection<FlagRecord>, query: Query) {
        let search = query.search.lowercased()
        let matching = all.filter { flag in
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
            return true
        }
        let sorted = matching.sorted { lhs, rhs in
            let order = Self.order(lhs, rhs, by: query.sort)
            // Ties (and the key column itself) fall back to the key, ascending, so pages are stable.
            if order == .orderedSame { return lhs.key < rhs.key }
            return query.descending ? order == .orderedDescending : order == .orderedAscending
        }
        total = sorted.count
        pageCount = max(1, (sorted.count + Self.pageSize - 1) / Self.pageSize)
        page = min(query.page, pageCount)
        flags = Array(sorted.dropFirst((page - 1) * Self.pageSize).prefix(Self.pageSize))
    }

    /// How two flags compare by a column; flags without a value sort after those with one.
    static func order(_ lhs: FlagRecord, _ rhs: FlagRecord, by sort: Sort) -> ComparisonResult {
        func compare<T: Comparable>(_ left: T?, _ right: T?) -> ComparisonResult {
            switch (left, right) {
            case (nil, nil): return .orderedSame
            case (nil, _): return .orderedDescending
            case (_, nil): return .orderedAscending
            case (let left?, let right?): return left < right ? .orderedAscending : (left == right ? .orderedSame : .orderedDescending)
            }
        }
        switch sort {
        case .key: return compare(lhs.key, rhs.key)
        case .owner: return compare(lhs.metadata.owner?.lowercased(), rhs.metadata.owner?.lowercased())
        case .phase: return compare(lhs.metadata.phase, rhs.metadata.phase)
        case .type: return compare(lhs.type.rawValue, rhs.type.rawValue)
        case .removal:
            let left = lhs.metadata.removalTarget.flatMap(AppVersion.components)
            let right = rhs.metadata.removalTarget.flatMap(AppVersion.components)
            switch (left, right) {
            case (nil, nil): return .orderedSame
            case (nil, _): return .orderedDescending
            case (_, nil): return .orderedAscending
            case (let left?, let right?):
                return left.lexicographicallyPrecedes(right) ? .orderedAscending : (left == right ? .orderedSame : .orderedDescending)
            }
        }
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
