import ExampleFlags
import FeatureFlags
import Testing

/// The value field's draft: commits on Return, on leaving the field and from the keyboard
/// toolbar; says when its text is not applied; keeps what is typed across redraws.
struct FlagDebugFieldDraftTests {
    let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
    var menu: FlagDebugModel { FlagDebugModel(flags) }

    func row(_ key: String) throws -> FlagDebugRow {
        try #require(menu.rows().first { $0.key == key })
    }

    @Test func leavingTheFieldCommitsADecimal() throws {
        var draft = FlagDebugFieldDraft(try row("stream_flush_interval"))
        #expect(draft.isNumeric)
        #expect(draft.notice == nil)
        draft.text = "0.25"
        #expect(draft.hasUncommittedText)
        #expect(draft.notice == "Not applied yet: press Return or Done, or leave the field.")
        let result1 = draft.focusChanged(isFocused: true, with: menu)
        #expect(!result1, "gaining focus commits nothing")
        #expect(flags.value(AppConfig.streamFlushInterval) == 0.05)
        let result2 = draft.focusChanged(isFocused: false, with: menu)
        #expect(result2)
        #expect(flags.value(AppConfig.streamFlushInterval) == 0.25)
        #expect(!draft.hasUncommittedText)
        #expect(draft.notice == nil)
    }

    /// The decimal keypad has no minus sign: the toolbar's ± button puts one in.
    @Test func theToolbarsSignButtonMakesNegativeNumbers() throws {
        var draft = FlagDebugFieldDraft(try row("page_size"))
        draft.text = "25"
        draft.toggleSign()
        #expect(draft.text == "-25")
        draft.toggleSign()
        #expect(draft.text == "25")
        draft.text = "+3"
        draft.toggleSign()
        #expect(draft.text == "-3")
        #expect(!FlagDebugFieldDraft(try row("onboarding_variant")).isNumeric)
    }

    /// A decimal keypad in a comma locale types a comma.
    @Test func aDecimalCommaIsADecimalSeparator() throws {
        var draft = FlagDebugFieldDraft(try row("stream_flush_interval"))
        draft.text = "0,5"
        let result3 = draft.commit(with: menu)
        #expect(result3)
        #expect(flags.value(AppConfig.streamFlushInterval) == 0.5)
        draft.text = "1,000,5"
        let result4 = draft.commit(with: menu)
        #expect(!result4)
        #expect(flags.value(AppConfig.streamFlushInterval) == 0.5)
    }

    @Test func refusedTextStaysWithItsProblem() throws {
        var draft = FlagDebugFieldDraft(try row("page_size"))
        draft.text = "lots"
        let result5 = draft.commit(with: menu)
        #expect(!result5)
        #expect(draft.text == "lots")
        #expect(draft.notice == "'page_size' takes a whole number, such as 42; 'lots' is not one.")
        #expect(flags.value(AppConfig.pageSize) == 10)
        draft.revert()
        #expect(draft.text == "10")
        #expect(draft.notice == nil)
    }

    @Test func committingUnchangedTextSetsNoOverride() throws {
        var draft = FlagDebugFieldDraft(try row("page_size"))
        let result6 = draft.commit(with: menu)
        #expect(!result6)
        #expect(!flags.engine.isOverridden("page_size"))
    }

    /// A redraw with a new value (set elsewhere, or remote values applied) replaces the text
    /// only when nothing is being typed.
    @Test func aNewValueNeverReplacesTypedText() throws {
        var draft = FlagDebugFieldDraft(try row("page_size"))
        flags.setOverride(AppConfig.pageSize, to: 30)
        draft.rowChanged(try row("page_size"))
        #expect(draft.text == "30")
        draft.text = "4"
        flags.setOverride(AppConfig.pageSize, to: 31)
        draft.rowChanged(try row("page_size"))
        #expect(draft.text == "4")
        #expect(draft.committedText == "31")
        #expect(draft.hasUncommittedText)
    }
}
