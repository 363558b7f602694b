import SwiftSyntax

/// Comma-separated lists (arguments, enum cases, patterns, conditions) rebuilt after the flag's
/// elements were removed.
extension FlagRemovalRewriter {
    /// Rebuilds a comma-separated list after removing elements: commas between elements, and a
    /// trailing comma only if the original had one.
    static func withCommas<List: SyntaxCollection>(_ elements: [List.Element], original: List) -> List
    where List.Element: WithTrailingCommaSyntax {
        let trailing = original.last?.trailingComma != nil
        let fixed = elements.enumerated().map { index, element in
            let isLast = index == elements.count - 1
            if isLast {
                if !trailing { return element.with(\.trailingComma, nil) }
                return element.trailingComma == nil ? element.with(\.trailingComma, .commaToken()) : element
            }
            var element = element
            if element.trailingComma == nil { element = element.with(\.trailingComma, .commaToken(trailingTrivia: .space)) }
            // No space left at the end of a line when the next element starts on a new one.
            if elements[index + 1].leadingTrivia.contains(where: \.isNewline), let comma = element.trailingComma,
                comma.trailingTrivia.allSatisfy(\.isSpaceOrTab)
            {
                element = element.with(\.trailingComma, comma.with(\.trailingTrivia, []))
            }
            return element
        }
        return List(fixed)
    }
}

extension TriviaPiece {
    fileprivate var isSpaceOrTab: Bool {
        switch self {
        case .spaces, .tabs: true
        default: false
        }
    }
}
