/// The text of one debug-menu value field between keystrokes and the override it sets: what was
/// typed, whether it is applied, and the problem when it could not be.
///
/// The SwiftUI field commits on Return, when it loses focus, and from its keyboard toolbar
/// (the decimal keypad has no Return key and no minus sign); a field whose text is not applied
/// says so (``notice``), and a new value from elsewhere never replaces what is being typed.
///
/// ```swift
/// var draft = FlagDebugFieldDraft(row)
/// draft.text = "-0.25"
/// draft.commit(with: menu)           // sets the override, or keeps the text and a problem
/// ```
public struct FlagDebugFieldDraft: Sendable, Hashable {
    /// The flag's key.
    public let key: String
    /// What the field shows and the user edits.
    public var text: String
    /// The text of the value in effect: what the field started from or last applied.
    public private(set) var committedText: String
    /// Why the last commit failed, until the text is applied or changed back.
    public private(set) var problem: String?
    /// Whether the field takes numbers, so the keyboard toolbar offers a minus sign.
    public let isNumeric: Bool

    /// A draft showing a row's value.
    public init(_ row: FlagDebugRow) {
        self.key = row.key
        self.text = row.editText
        self.committedText = row.editText
        switch row.editor {
        case .integer, .decimal: self.isNumeric = true
        default: self.isNumeric = false
        }
    }

    /// Whether the text differs from the value in effect.
    public var hasUncommittedText: Bool { text != committedText }

    /// What the field says under itself: the problem, or that the text is not applied yet;
    /// `nil` when the text is the value in effect.
    public var notice: String? {
        if let problem, hasUncommittedText { return problem }
        return hasUncommittedText ? "Not applied yet: press Return or Done, or leave the field." : nil
    }

    /// Sets the override from the text when it differs from the value in effect. On success
    /// the text becomes the committed text; on failure it stays, with ``problem`` set.
    ///
    /// - Returns: whether an override was set.
    @discardableResult
    public mutating func commit(with model: FlagDebugModel) -> Bool {
        guard hasUncommittedText else {
            problem = nil
            return false
        }
        do throws(FlagDebugInputError) {
            try model.setOverride(parsing: text, forKey: key)
            committedText = text
            problem = nil
            return true
        } catch {
            problem = error.message
            return false
        }
    }

    /// What a focus change does: leaving the field commits it.
    @discardableResult
    public mutating func focusChanged(isFocused: Bool, with model: FlagDebugModel) -> Bool {
        isFocused ? false : commit(with: model)
    }

    /// Takes a new value of the row (an override set elsewhere, remote values applied). Text
    /// that is not applied is kept, so a redraw never eats what the user is typing.
    public mutating func rowChanged(_ row: FlagDebugRow) {
        let typing = hasUncommittedText
        committedText = row.editText
        if !typing {
            text = row.editText
            problem = nil
        }
    }

    /// Puts a minus sign in front of the number, or takes it away: the decimal keypad has none.
    public mutating func toggleSign() {
        let trimmed = text.trimmingWhitespace()
        if trimmed.hasPrefix("-") {
            text = String(trimmed.dropFirst())
        } else if trimmed.hasPrefix("+") {
            text = "-" + trimmed.dropFirst()
        } else {
            text = "-" + trimmed
        }
    }

    /// Puts the value in effect back in the field.
    public mutating func revert() {
        text = committedText
        problem = nil
    }
}
