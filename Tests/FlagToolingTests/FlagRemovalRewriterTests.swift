@testable import FlagTooling
import Testing

struct FlagRemovalRewriterTests {
    func rewrite(_ source: String, keep: Bool) -> String {
        FlagRemovalRewriter(caseName: "newChat", key: "new_chat", keep: keep).rewrite(source: source)
    }

    @Test func keepOffTakesElseBranchesAndGuardExits() {
        let source = """
            func title(flags: FeatureFlagManager<AppFlag>) -> String {
                if flags.isEnabled(.newChat) {
                    log("new")
                } else if flags.isEnabled(.other) {
                    log("other")
                } else {
                    log("classic")
                }
                guard flags[AppFlag.newChat] else {
                    return "off"
                }
                return "on"
            }
            """
        #expect(rewrite(source, keep: false) == """
            func title(flags: FeatureFlagManager<AppFlag>) -> String {
                if flags.isEnabled(.other) {
                    log("other")
                } else {
                    log("classic")
                }
                return "off"
            }
            """)
    }

    @Test func keepOnSimplifiesConditionsAndExpressions() {
        let source = """
            let a = flags.isEnabled(.newChat) || slow()
            let b = !flags.isEnabled(.newChat) && slow()
            let c = (flags.isEnabled(.newChat) && ready) ? 1 : 2
            let d = flags.isEnabled(.newChat) ? "new" : "old"
            while flags.isEnabled(.newChat) && ready { step() }
            if let user, flags.isEnabled(.newChat) { greet(user) }
            """
        #expect(rewrite(source, keep: true) == """
            let a = true
            let b = false
            let c = (ready) ? 1 : 2
            let d = "new"
            while ready { step() }
            if let user { greet(user) }
            """)
    }

    @Test func inlinedDeclarationsAreScopedAndDeadCodeDropped() {
        let source = """
            func run() {
                if flags.isEnabled(.newChat) {
                    let x = 1
                    use(x)
                }
                if !flags.isEnabled(.newChat) {
                    return
                }
                finish()
            }
            """
        #expect(rewrite(source, keep: true) == """
            func run() {
                do {
                    let x = 1
                    use(x)
                }
                finish()
            }
            """)
        #expect(rewrite(source, keep: false) == """
            func run() {
                return
            }
            """)
    }

    @Test func viewModifiersOverridesAndEnumDeclarations() {
        let source = """
            enum AppFlag: String, CaseIterable, FeatureFlagKey {
                case newChat = "new_chat"
                case other = "other"
                var metadata: FlagMetadata<AppFlag> {
                    switch self {
                    case .newChat: FlagMetadata("New chat")
                    case .other: FlagMetadata("Other", requires: [.newChat])
                    }
                }
            }
            var body: some View {
                Text("banner").featureGated(.newChat)
                Text("title").withFeature(.newChat) { view in view.bold() }
            }
            func reset() {
                flags.setOverride(.newChat, to: nil)
                switch flag {
                case .newChat, .other: break
                }
            }
            """
        #expect(rewrite(source, keep: false) == """
            enum AppFlag: String, CaseIterable, FeatureFlagKey {
                case other = "other"
                var metadata: FlagMetadata<AppFlag> {
                    switch self {
                    case .other: FlagMetadata("Other")
                    }
                }
            }
            var body: some View {
                EmptyView()
                Text("title")
            }
            func reset() {
                switch flag {
                case .other: break
                }
            }
            """)
        #expect(rewrite(source, keep: true).contains("""
                Text("banner")
                Text("title").bold()
            """))
    }

    @Test func unrelatedCodeIsUntouched() {
        let source = """
            if true && ready { go() }
            let x = flags.isEnabled(.other) ? 1 : 2
            """
        #expect(rewrite(source, keep: true) == source)
    }

    @Test func commentsBeforeRemovedCasesStay() {
        let source = """
            enum AppFlag: String, CaseIterable, FeatureFlagKey {
                // MARK: Phase 1
                case newChat = "new_chat"
                // MARK: Phase 2
                case other = "other"
                // MARK: Phase 3
                case late = "late"

                var metadata: FlagMetadata<AppFlag> {
                    switch self {
                    // Phase 1
                    case .newChat: FlagMetadata("New chat")
                    // Phase 2
                    case .other: FlagMetadata("Other")
                    case .late: FlagMetadata("Late")
                    }
                }
            }
            """
        #expect(rewrite(source, keep: true) == """
            enum AppFlag: String, CaseIterable, FeatureFlagKey {
                // MARK: Phase 1
                // MARK: Phase 2
                case other = "other"
                // MARK: Phase 3
                case late = "late"

                var metadata: FlagMetadata<AppFlag> {
                    switch self {
                    // Phase 1
                    // Phase 2
                    case .other: FlagMetadata("Other")
                    case .late: FlagMetadata("Late")
                    }
                }
            }
            """)
    }

    @Test func dependencyListsKeepTheirLayoutAndEmptyOnesGoFromInitCalls() {
        let source = """
            enum AppFlag: String, CaseIterable, FeatureFlagKey {
                case newChat = "new_chat", other = "other", third = "third"
                var metadata: FlagMetadata<AppFlag> {
                    switch self {
                    case .newChat: .init("New chat")
                    case .other:
                        .init("Other", phase: 1, owner: "a", conflicts: [.newChat],
                              userTogglable: true)
                    case .third:
                        FlagMetadata(
                            "Third",
                            requires: [
                                .other,
                                .newChat,
                            ]
                        )
                    }
                }
            }
            """
        #expect(rewrite(source, keep: false) == """
            enum AppFlag: String, CaseIterable, FeatureFlagKey {
                case other = "other", third = "third"
                var metadata: FlagMetadata<AppFlag> {
                    switch self {
                    case .other:
                        .init("Other", phase: 1, owner: "a",
                              userTogglable: true)
                    case .third:
                        FlagMetadata(
                            "Third",
                            requires: [
                                .other,
                            ]
                        )
                    }
                }
            }
            """)
    }

    @Test func constantsHoldingTheFlagAreFoldedAndRemoved() {
        let source = """
            func title(flags: FeatureFlagManager<AppFlag>) -> String {
                let isNew = flags.isEnabled(.newChat)
                let count = 2
                let total = compute()
                if isNew && count > 1 {
                    use(total)
                    return "new"
                }
                return "old"
            }
            """
        #expect(rewrite(source, keep: true) == """
            func title(flags: FeatureFlagManager<AppFlag>) -> String {
                let count = 2
                let total = compute()
                if count > 1 {
                    use(total)
                    return "new"
                }
                return "old"
            }
            """)
        // `count` and `total` were only read by the dead branch; `compute()` still runs.
        #expect(rewrite(source, keep: false) == """
            func title(flags: FeatureFlagManager<AppFlag>) -> String {
                _ = compute()
                return "old"
            }
            """)
    }
}
