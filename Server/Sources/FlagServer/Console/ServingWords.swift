import FlagEvaluation
import FlagServerModel

/// What a flag serves in an environment, said in a few words ("on: 10 % rollout of on"), with
/// a kind the console colours by: the grid's cells and the history's sentences read it.
struct ServingWords: Sendable, Hashable {
    enum Kind: String, Sendable {
        /// On, serving one variant to everybody.
        case on
        /// Off: apps use their code default.
        case off
        /// On, a percentage split over several variants.
        case rollout
        /// On, with a targeting rule that is not a plain split.
        case rule
    }

    var kind: Kind
    /// What it serves while on, without the state ("10 % rollout of on", "serves on").
    var plan: String

    /// The whole phrase: the state, then the plan ("off" alone for a flag that is off).
    var text: String { kind == .off ? "off" : "on: " + plan }

    init(flag: FlagRecord?, settings: FlagSettings) {
        let fallback = settings.defaultVariant ?? "the code default"
        let plan: String
        var kind = Kind.on
        if let targeting = settings.targeting {
            if let percentages = SettingsPreview.percentages(of: targeting) {
                let serving = percentages.filter { $0.value > 0 }.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
                if serving.count == 1, let only = serving.first {
                    plan = "serves \(only.key)"
                } else if let flag, flag.type == .boolean, serving.count == 2,
                    let yes = serving.first(where: { flag.variants[$0.key] == .bool(true) })
                {
                    plan = "\(yes.value) % rollout of \(yes.key)"
                    kind = .rollout
                } else {
                    plan = "split " + serving.map { "\($0.key) \($0.value) %" }.joined(separator: " · ")
                    kind = .rollout
                }
            } else {
                plan = "rule, else \(fallback)"
                kind = .rule
            }
        } else {
            plan = "serves \(fallback)"
        }
        self.plan = plan
        self.kind = settings.enabled ? kind : .off
    }
}
