/// A unified diff of two texts, line by line, for summaries of rewrites.
public enum LineDiff {
    /// `--- a/path` / `+++ b/path` and hunks with `context` unchanged lines around changes; empty
    /// when the texts are equal.
    public static func unified(from old: String, to new: String, path: String, context: Int = 2) -> String {
        guard old != new else { return "" }
        let a = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let b = new.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Longest common subsequence table, from the end.
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                table[i][j] = a[i] == b[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        enum Op { case same(String), removed(String), added(String) }
        var ops: [(op: Op, oldLine: Int, newLine: Int)] = []
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] {
                ops.append((.same(a[i]), i, j)); i += 1; j += 1
            } else if i < a.count, j == b.count || table[i + 1][j] >= table[i][j + 1] {
                ops.append((.removed(a[i]), i, j)); i += 1
            } else {
                ops.append((.added(b[j]), i, j)); j += 1
            }
        }
        let shown = path.hasPrefix("/") ? path : "/" + path
        var output = "--- a\(shown)\n+++ b\(shown)\n"
        var index = 0
        while index < ops.count {
            guard case .same = ops[index].op else {
                // A hunk: from `context` lines before this change to `context` after the last
                // change that is at most 2 * context lines away.
                let start = max(0, index - context)
                var end = index
                var scan = index
                while scan < ops.count {
                    if case .same = ops[scan].op {
                        scan += 1
                        continue
                    }
                    end = scan
                    scan += 1
                    var gap = 0
                    while scan < ops.count, case .same = ops[scan].op, gap <= 2 * context {
                        gap += 1
                        scan += 1
                    }
                    if gap > 2 * context || scan >= ops.count { break }
                }
                let stop = min(ops.count, end + context + 1)
                let slice = ops[start..<stop]
                let oldCount = slice.filter { if case .added = $0.op { false } else { true } }.count
                let newCount = slice.filter { if case .removed = $0.op { false } else { true } }.count
                output += "@@ -\(ops[start].oldLine + 1),\(oldCount) +\(ops[start].newLine + 1),\(newCount) @@\n"
                for entry in slice {
                    switch entry.op {
                    case .same(let line): output += " \(line)\n"
                    case .removed(let line): output += "-\(line)\n"
                    case .added(let line): output += "+\(line)\n"
                    }
                }
                index = stop
                continue
            }
            index += 1
        }
        return output
    }
}
