import SwiftOperators
import SwiftParser
import SwiftSyntax

/// Rewrites one Swift file as if a Boolean flag were permanently on (or off).
///
/// - `if`/`else if`/`else`, `guard`, ternaries, `!`, `&&` and `||` over the flag's checks
///   (`isEnabled(.flag)`, `isEnabled(AppFlag.flag)`, `flags[.flag]`) are simplified and dead
///   branches removed; code after an inlined `return`/`throw` is dropped;
/// - `view.featureGated(.flag)` becomes `view` (on) or `EmptyView()` (off);
///   `view.withFeature(.flag) { $0.modifier() }` becomes `view.modifier()` (on) or `view` (off);
/// - statements that only set or query the flag (`setOverride(.flag, to:)`) are removed;
/// - the case is removed from flag enums (declaration, `metadata` switch), from `switch`
///   patterns and from `requires:`/`conflicts:` lists.
final class FlagRemovalRewriter: SyntaxRewriter {
    let caseName: String
    let key: String
    let keep: Bool
    /// What was done, as short sentences, for the summary.
    private(set) var notes: [String] = []
    /// Local constants bound to a check of the flag (`let isNew = flags.isEnabled(.newChat)`),
    /// with the value they now always have.
    private var aliases: [String: Bool] = [:]

    init(caseName: String, key: String, keep: Bool) {
        self.caseName = caseName
        self.key = key
        self.keep = keep
        super.init(viewMode: .sourceAccurate)
    }

    /// Rewrites `source`; returns the new text (equal to `source` when nothing applied).
    func rewrite(source: String) -> String {
        let tree = Parser.parse(source: source)
        let folded = OperatorTable.standardOperators.foldAll(tree, errorHandler: { _ in })
        return rewrite(folded).description
    }

    // MARK: - Recognising the flag

    /// `.flag` or `SomeType.flag`.
    func isFlagReference(_ expr: ExprSyntax) -> Bool {
        guard let member = expr.as(MemberAccessExprSyntax.self),
            member.declName.baseName.text.filter({ $0 != "`" }) == caseName
        else { return false }
        guard let base = member.base else { return true }
        guard let name = base.as(DeclReferenceExprSyntax.self)?.baseName.text else { return false }
        return name.first?.isUppercase == true
    }

    /// `x.isEnabled(.flag)`, `isEnabled(.flag)`, `x[.flag]`.
    func isFlagCheck(_ expr: ExprSyntax) -> Bool {
        if let call = expr.as(FunctionCallExprSyntax.self) {
            let name =
                call.calledExpression.as(MemberAccessExprSyntax.self)?.declName.baseName.text
                ?? call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text
            guard name == "isEnabled", let first = call.arguments.first, first.label == nil else { return false }
            return isFlagReference(first.expression)
        }
        if let subscriptCall = expr.as(SubscriptCallExprSyntax.self) {
            guard subscriptCall.arguments.count == 1, let first = subscriptCall.arguments.first, first.label == nil
            else { return false }
            return isFlagReference(first.expression)
        }
        return false
    }

    /// Whether the expression mentions the flag anywhere.
    func mentionsFlag(_ node: some SyntaxProtocol) -> Bool {
        if let expr = node.as(ExprSyntax.self), isFlagReference(expr) { return true }
        if let reference = node.as(DeclReferenceExprSyntax.self), aliases[reference.baseName.text] != nil { return true }
        return node.children(viewMode: .sourceAccurate).contains { mentionsFlag($0) }
    }

    // MARK: - Evaluating conditions

    /// The value of a condition when it depends only on the flag; `nil` when unknown.
    func truth(_ expr: ExprSyntax) -> Bool? {
        if isFlagCheck(expr) { return keep }
        if let reference = expr.as(DeclReferenceExprSyntax.self), reference.argumentNames == nil,
            let value = aliases[reference.baseName.text]
        {
            return value
        }
        if let prefix = expr.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "!" {
            return truth(prefix.expression).map { !$0 }
        }
        if let tuple = expr.as(TupleExprSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first,
            only.label == nil
        {
            return truth(only.expression)
        }
        if let infix = expr.as(InfixOperatorExprSyntax.self),
            let op = infix.operator.as(BinaryOperatorExprSyntax.self)?.operator.text
        {
            let left = truth(infix.leftOperand), right = truth(infix.rightOperand)
            switch op {
            case "&&":
                if left == false || right == false { return false }
                if left == true, right == true { return true }
            case "||":
                if left == true || right == true { return true }
                if left == false, right == false { return false }
            default: break
            }
            return nil
        }
        if let ternary = expr.as(TernaryExprSyntax.self), let condition = truth(ternary.condition) {
            return truth(condition ? ternary.thenExpression : ternary.elseExpression)
        }
        return nil
    }

    private func literal(_ value: Bool, like node: some SyntaxProtocol) -> ExprSyntax {
        ExprSyntax(
            BooleanLiteralExprSyntax(literal: .keyword(value ? .true : .false))
                .with(\.leadingTrivia, node.leadingTrivia).with(\.trailingTrivia, node.trailingTrivia))
    }

    private func keepingTrivia(_ expr: ExprSyntax, of node: some SyntaxProtocol) -> ExprSyntax {
        expr.with(\.leadingTrivia, node.leadingTrivia).with(\.trailingTrivia, node.trailingTrivia)
    }

    /// The expression with the flag's checks folded away.
    func simplify(_ expr: ExprSyntax) -> ExprSyntax {
        if let value = truth(expr) {
            if mentionsFlag(expr) { return literal(value, like: expr) }
        }
        if let infix = expr.as(InfixOperatorExprSyntax.self),
            let op = infix.operator.as(BinaryOperatorExprSyntax.self)?.operator.text, op == "&&" || op == "||"
        {
            let left = truth(infix.leftOperand), right = truth(infix.rightOperand)
            let neutral = op == "&&"  // the value that can be dropped
            if left == neutral { return keepingTrivia(simplify(infix.rightOperand).trimmed, of: infix) }
            if right == neutral { return keepingTrivia(simplify(infix.leftOperand).trimmed, of: infix) }
            return ExprSyntax(
                infix.with(\.leftOperand, simplify(infix.leftOperand)).with(\.rightOperand, simplify(infix.rightOperand)))
        }
        if let prefix = expr.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "!" {
            return ExprSyntax(prefix.with(\.expression, simplify(prefix.expression)))
        }
        if let tuple = expr.as(TupleExprSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first,
            only.label == nil
        {
            let inner = simplify(only.expression)
            if inner.is(DeclReferenceExprSyntax.self) || inner.is(FunctionCallExprSyntax.self)
                || inner.is(MemberAccessExprSyntax.self)
            {
                return keepingTrivia(inner.trimmed, of: tuple)
            }
            return ExprSyntax(tuple.with(\.elements, [only.with(\.expression, inner)]))
        }
        if let ternary = expr.as(TernaryExprSyntax.self), let condition = truth(ternary.condition) {
            notes.append("simplified a ternary")
            return keepingTrivia(simplify(condition ? ternary.thenExpression : ternary.elseExpression).trimmed, of: ternary)
        }
        return rewrite(Syntax(expr)).cast(ExprSyntax.self)
    }

    // MARK: - Expressions

    override func visit(_ node: InfixOperatorExprSyntax) -> ExprSyntax {
        if let op = node.operator.as(BinaryOperatorExprSyntax.self)?.operator.text, op == "&&" || op == "||",
            mentionsFlag(node)
        {
            return simplify(ExprSyntax(node))
        }
        return super.visit(node)
    }

    override func visit(_ node: PrefixOperatorExprSyntax) -> ExprSyntax {
        if node.operator.text == "!", mentionsFlag(node) { return simplify(ExprSyntax(node)) }
        return super.visit(node)
    }

    override func visit(_ node: TernaryExprSyntax) -> ExprSyntax {
        if truth(node.condition) != nil { return simplify(ExprSyntax(node)) }
        return super.visit(node)
    }

    override func visit(_ node: SubscriptCallExprSyntax) -> ExprSyntax {
        if isFlagCheck(ExprSyntax(node)) { return literal(keep, like: node) }
        return super.visit(node)
    }

    override func visit(_ node: FunctionCallExprSyntax) -> ExprSyntax {
        if isFlagCheck(ExprSyntax(node)) { return literal(keep, like: node) }
        if let member = node.calledExpression.as(MemberAccessExprSyntax.self), let base = member.base,
            let first = node.arguments.first, isFlagReference(first.expression)
        {
            switch member.declName.baseName.text {
            case "featureGated":
                notes.append("simplified featureGated")
                let kept = keep ? rewrite(Syntax(base)).cast(ExprSyntax.self) : ExprSyntax(
                    FunctionCallExprSyntax(
                        calledExpression: DeclReferenceExprSyntax(baseName: .identifier("EmptyView")),
                        leftParen: .leftParenToken(), arguments: [], rightParen: .rightParenToken()))
                return keepingTrivia(kept.trimmed, of: node)
            case "withFeature":
                let newBase = rewrite(Syntax(base)).cast(ExprSyntax.self).trimmed
                guard keep else {
                    notes.append("simplified withFeature")
                    return keepingTrivia(newBase, of: node)
                }
                if let applied = applyTransform(of: node, to: newBase) {
                    notes.append("simplified withFeature")
                    return keepingTrivia(applied, of: node)
                }
            default: break
            }
        }
        let rewritten = super.visit(node)
        guard let call = rewritten.as(FunctionCallExprSyntax.self),
            ["FlagMetadata", ".init", "FlagMetadata.init"].contains(call.calledExpression.trimmedDescription)
        else { return rewritten }
        // Drop `requires: []` and `conflicts: []` left empty by the removal.
        let kept = call.arguments.filter { argument in
            guard let label = argument.label?.text, label == "requires" || label == "conflicts",
                let array = argument.expression.as(ArrayExprSyntax.self)
            else { return true }
            return !array.elements.isEmpty
        }
        guard kept.count != call.arguments.count else { return rewritten }
        return ExprSyntax(call.with(\.arguments, Self.withCommas(Array(kept), original: call.arguments)))
    }

    /// `base.withFeature(.flag) { $0.modifier() }` → `base.modifier()`, for one-expression closures.
    private func applyTransform(of call: FunctionCallExprSyntax, to base: ExprSyntax) -> ExprSyntax? {
        let closure = call.trailingClosure ?? call.arguments.dropFirst().first?.expression.as(ClosureExprSyntax.self)
        guard let closure, closure.statements.count == 1,
            let body = closure.statements.first?.item.as(ExprSyntax.self)
        else { return nil }
        var parameter = "$0"
        if let signature = closure.signature {
            if let names = signature.parameterClause?.as(ClosureShorthandParameterListSyntax.self), names.count == 1 {
                parameter = names.first!.name.text
            } else {
                return nil
            }
        }
        let substituted = ParameterSubstitution(name: parameter, replacement: base).rewrite(Syntax(body))
        return rewrite(substituted).cast(ExprSyntax.self).trimmed
    }

    // MARK: - Statements

    override func visit(_ node: CodeBlockItemListSyntax) -> CodeBlockItemListSyntax {
        let outerAliases = aliases
        defer { aliases = outerAliases }
        var items: [CodeBlockItemSyntax] = []
        // Constants read by the code after them, which the rewrite may leave unread.
        var bound: [String] = []
        let original = Array(node)
        // Top-level constants are globals other files may read: leave them.
        let isLocal = !(node.parent?.is(SourceFileSyntax.self) ?? true)
        for (offset, item) in original.enumerated() {
            let alias = aliasName(item)
            if isLocal, let name = alias ?? Self.constantName(item),
                original[(offset + 1)...].contains(where: { Self.references($0, name: name) })
            {
                bound.append(name)
            }
            if let replacement = replacement(for: item) {
                items += replacement.items
                if replacement.endsFlow { break }
            } else {
                items.append(rewrite(Syntax(item)).cast(CodeBlockItemSyntax.self))
            }
        }
        // A constant that held the flag's value, or a literal only dead code read, goes too; a
        // constant computed by a call is kept as `_ = call`, in case the call matters.
        for name in bound.reversed() {
            guard let index = items.firstIndex(where: { Self.constantName($0) == name }) else { continue }
            let rest = items[items.index(after: index)...]
            if !rest.contains(where: { Self.references($0, name: name) }) {
                let value = items[index].item.as(VariableDeclSyntax.self)?.bindings.first?.initializer?.value
                if let value, aliases[name] == nil, !Self.isLiteral(value) {
                    notes.append("discarded a constant no longer read")
                    if let discard = Parser.parse(source: "_ = \(value.trimmedDescription)").statements.first {
                        items[index] = discard.with(\.leadingTrivia, items[index].leadingTrivia)
                            .with(\.trailingTrivia, items[index].trailingTrivia)
                    }
                    continue
                }
                notes.append(aliases[name] != nil ? "removed a constant that held the flag's value" : "removed a constant no longer read")
                let removed = items.remove(at: index)
                if index < items.count {
                    items[index] = items[index].with(\.leadingTrivia, Self.keepingComments(of: removed.leadingTrivia, before: items[index].leadingTrivia))
                }
            }
        }
        return CodeBlockItemListSyntax(items)
    }

    /// `let name = <check of the flag>`: records `name` as an alias and returns it.
    private func aliasName(_ item: CodeBlockItemSyntax) -> String? {
        guard let declaration = item.item.as(VariableDeclSyntax.self), declaration.bindingSpecifier.tokenKind == .keyword(.let),
            declaration.bindings.count == 1, let binding = declaration.bindings.first,
            let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
            let value = binding.initializer?.value, mentionsFlag(value), let truth = truth(value)
        else { return nil }
        aliases[name] = truth
        return name
    }

    /// The name of `let name = value` (one plain binding with a value).
    private static func constantName(_ item: CodeBlockItemSyntax) -> String? {
        guard let declaration = item.item.as(VariableDeclSyntax.self), declaration.bindingSpecifier.tokenKind == .keyword(.let),
            declaration.bindings.count == 1, let binding = declaration.bindings.first, binding.initializer != nil
        else { return nil }
        return binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
    }

    private static func isLiteral(_ expr: ExprSyntax) -> Bool {
        expr.is(BooleanLiteralExprSyntax.self) || expr.is(IntegerLiteralExprSyntax.self) || expr.is(FloatLiteralExprSyntax.self)
            || expr.is(StringLiteralExprSyntax.self) || expr.is(NilLiteralExprSyntax.self)
            || expr.is(DeclReferenceExprSyntax.self)
    }

    private static func references(_ node: some SyntaxProtocol, name: String) -> Bool {
        node.tokens(viewMode: .sourceAccurate).contains { $0.tokenKind == .identifier(name) }
    }

    /// The comments of a removed node's leading trivia put before the next node's own trivia, so
    /// removing code never removes a comment such as `// MARK: -`.
    static func keepingComments(of removed: Trivia, before next: Trivia) -> Trivia {
        guard removed.contains(where: \.isComment) else { return next }
        // The removed node's trivia up to its last comment (and that line's end), then the next node's.
        var pieces = Array(removed)
        while let last = pieces.last, !last.isComment { pieces.removeLast() }
        var nextPieces = Array(next)
        // Keep one line break between the comment and the next node: drop the next node's
        // blank lines beyond what the removed node had.
        if let first = nextPieces.first, case .newlines(let count) = first, count > 1 {
            nextPieces[0] = .newlines(1)
        }
        return Trivia(pieces: pieces + nextPieces)
    }

    private struct Replacement {
        var items: [CodeBlockItemSyntax]
        /// Whether the inlined code ends in `return`, `throw`, `break` or `continue`, making
        /// the rest of the block dead.
        var endsFlow: Bool
    }

    private func replacement(for item: CodeBlockItemSyntax) -> Replacement? {
        if let ifExpr = item.item.as(ExpressionStmtSyntax.self)?.expression.as(IfExprSyntax.self)
            ?? item.item.as(IfExprSyntax.self)
        {
            return replacement(for: ifExpr, leadingTrivia: item.leadingTrivia)
        }
        if let guardStmt = item.item.as(GuardStmtSyntax.self) {
            return replacement(for: guardStmt, leadingTrivia: item.leadingTrivia)
        }
        // A statement that only sets or reads the flag: `flags.setOverride(.flag, to: true)`.
        var expression = item.item.as(ExprSyntax.self) ?? item.item.as(ExpressionStmtSyntax.self)?.expression
        if let tryExpr = expression?.as(TryExprSyntax.self) { expression = tryExpr.expression }
        if let call = expression?.as(FunctionCallExprSyntax.self), !isFlagCheck(ExprSyntax(call)),
            call.arguments.contains(where: { isFlagReference($0.expression) }),
            let name = call.calledExpression.as(MemberAccessExprSyntax.self)?.declName.baseName.text,
            ["setOverride", "setUserPreference", "details", "isOverridden"].contains(name)
        {
            notes.append("removed a call to \(name)")
            return Replacement(items: [], endsFlow: false)
        }
        return nil
    }

    private func replacement(for ifExpr: IfExprSyntax, leadingTrivia: Trivia) -> Replacement? {
        guard let (value, conditions) = evaluate(ifExpr.conditions) else { return nil }
        switch value {
        case true?:
            notes.append("kept the body of an if")
            return inline(ifExpr.body, leadingTrivia: leadingTrivia)
        case false?:
            switch ifExpr.elseBody {
            case .codeBlock(let block)?:
                notes.append("kept the else branch of an if")
                return inline(block, leadingTrivia: leadingTrivia)
            case .ifExpr(let elseIf)?:
                notes.append("removed a dead if branch")
                let promoted = elseIf.with(\.leadingTrivia, leadingTrivia)
                if let nested = replacement(for: promoted, leadingTrivia: leadingTrivia) { return nested }
                let item = CodeBlockItemSyntax(item: .stmt(StmtSyntax(ExpressionStmtSyntax(expression: ExprSyntax(promoted)))))
                return Replacement(items: [rewrite(Syntax(item)).cast(CodeBlockItemSyntax.self)], endsFlow: false)
            case nil:
                notes.append("removed a dead if")
                return Replacement(items: [], endsFlow: false)
            }
        case nil:
            let updated = ifExpr.with(\.conditions, conditions)
            let item = CodeBlockItemSyntax(
                item: .stmt(StmtSyntax(ExpressionStmtSyntax(expression: ExprSyntax(updated.with(\.leadingTrivia, leadingTrivia))))))
            notes.append("simplified an if condition")
            return Replacement(items: [rewrite(Syntax(item)).cast(CodeBlockItemSyntax.self)], endsFlow: false)
        }
    }

    private func replacement(for guardStmt: GuardStmtSyntax, leadingTrivia: Trivia) -> Replacement? {
        guard let (value, conditions) = evaluate(guardStmt.conditions) else { return nil }
        switch value {
        case true?:
            notes.append("removed a guard that always passes")
            return Replacement(items: [], endsFlow: false)
        case false?:
            notes.append("kept the else branch of a guard and dropped the code after it")
            var replacement = inline(guardStmt.body, leadingTrivia: leadingTrivia)
            replacement.endsFlow = true
            return replacement
        case nil:
            notes.append("simplified a guard condition")
            let updated = guardStmt.with(\.conditions, conditions).with(\.leadingTrivia, leadingTrivia)
            let item = CodeBlockItemSyntax(item: .stmt(StmtSyntax(updated)))
            return Replacement(items: [rewrite(Syntax(item)).cast(CodeBlockItemSyntax.self)], endsFlow: false)
        }
    }

    /// The value of a condition list (`true` when every condition is, `false` when any is)
    /// and the simplified list; `nil` when the list does not involve the flag.
    private func evaluate(_ conditions: ConditionElementListSyntax) -> (Bool?, ConditionElementListSyntax)? {
        guard mentionsFlag(conditions) else { return nil }
        var kept: [ConditionElementSyntax] = []
        for element in conditions {
            guard case .expression(let expr) = element.condition else {
                kept.append(rewrite(Syntax(element)).cast(ConditionElementSyntax.self))
                continue
            }
            switch truth(expr) {
            case false?: return (false, conditions)
            case true?: continue
            case nil: kept.append(element.with(\.condition, .expression(simplify(expr))))
            }
        }
        if kept.isEmpty { return (true, conditions) }
        var list = Self.withCommas(kept, original: conditions)
        if let first = list.first, let original = conditions.first {
            list = ConditionElementListSyntax(
                [first.with(\.leadingTrivia, original.leadingTrivia)] + Array(list.dropFirst()))
        }
        if let last = list.last, let original = conditions.last {
            list = ConditionElementListSyntax(Array(list.dropLast()) + [last.with(\.trailingTrivia, original.trailingTrivia)])
        }
        return (nil, list)
    }

    /// The statements of `block`, rewritten and moved out one level (wrapped in `do { }` when
    /// they declare names, which could clash with the enclosing scope).
    private func inline(_ block: CodeBlockSyntax, leadingTrivia: Trivia) -> Replacement {
        let statements = visit(block.statements)
        let endsFlow = statements.last.map { last in
            last.item.is(ReturnStmtSyntax.self) || last.item.is(ThrowStmtSyntax.self)
                || last.item.is(BreakStmtSyntax.self) || last.item.is(ContinueStmtSyntax.self)
        } ?? false
        guard !statements.isEmpty else { return Replacement(items: [], endsFlow: false) }
        let outer = Self.indentation(of: leadingTrivia)
        let declares = statements.contains { $0.item.is(DeclSyntax.self) }
        let text: String
        if declares {
            text = leadingTrivia.description + "do {" + statements.description + "\n" + outer + "}"
        } else {
            let inner = Self.indentation(of: statements.first!.leadingTrivia)
            let extra = inner.hasPrefix(outer) ? String(inner.dropFirst(outer.count)) : ""
            var body = statements.description
            body = String(body.drop(while: { $0 == "\n" || $0 == " " || $0 == "\t" }))
            let lines = body.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { index, line in
                index > 0 && !extra.isEmpty && line.hasPrefix(extra) ? String(line.dropFirst(extra.count)) : String(line)
            }
            text = leadingTrivia.description + lines.joined(separator: "\n")
        }
        let parsed = Parser.parse(source: text).statements
        return Replacement(items: Array(parsed), endsFlow: endsFlow)
    }

    private static func indentation(of trivia: Trivia) -> String {
        let text = trivia.description
        guard let newline = text.lastIndex(of: "\n") else { return "" }
        return String(text[text.index(after: newline)...].prefix(while: { $0 == " " || $0 == "\t" }))
    }

    // MARK: - Declarations and lists

    override func visit(_ node: EnumDeclSyntax) -> DeclSyntax {
        let inherited = node.inheritanceClause?.inheritedTypes.map { $0.type.trimmedDescription } ?? []
        guard inherited.contains(where: { $0 == "FeatureFlagKey" || $0.hasSuffix(".FeatureFlagKey") }) else {
            return super.visit(node)
        }
        var members: [MemberBlockItemSyntax] = []
        var pendingTrivia: Trivia?
        var trailingComments: Trivia?
        for member in node.memberBlock.members {
            guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else {
                if let pending = pendingTrivia {
                    members.append(member.with(\.leadingTrivia, Self.keepingComments(of: pending, before: member.leadingTrivia)))
                    pendingTrivia = nil
                } else {
                    members.append(member)
                }
                continue
            }
            let elements = caseDecl.elements.filter { element in
                let isFlag = element.name.text.filter({ $0 != "`" }) == caseName
                    || element.rawValue?.value.as(StringLiteralExprSyntax.self)?.simpleText == key
                return !isFlag
            }
            if elements.count == caseDecl.elements.count {
                members.append(member)
            } else if !elements.isEmpty {
                notes.append("removed the enum case")
                members.append(member.with(\.decl, DeclSyntax(caseDecl.with(\.elements, Self.withCommas(Array(elements), original: caseDecl.elements)))))
            } else {
                notes.append("removed the enum case")
                pendingTrivia = (pendingTrivia ?? Trivia()) + member.leadingTrivia
                continue
            }
            if let pending = pendingTrivia, let last = members.popLast() {
                members.append(last.with(\.leadingTrivia, Self.keepingComments(of: pending, before: last.leadingTrivia)))
                pendingTrivia = nil
            }
        }
        if let pending = pendingTrivia, pending.contains(where: \.isComment) {
            // The removed case was the last member: its comments stay before the closing brace.
            trailingComments = pending
        }
        var block = node.memberBlock.with(\.members, MemberBlockItemListSyntax(members))
        if let trailingComments {
            block = block.with(\.rightBrace, block.rightBrace.with(\.leadingTrivia, Self.keepingComments(of: trailingComments, before: block.rightBrace.leadingTrivia)))
        }
        return super.visit(node.with(\.memberBlock, block))
    }

    override func visit(_ node: SwitchCaseListSyntax) -> SwitchCaseListSyntax {
        var cases: [SwitchCaseListSyntax.Element] = []
        var pendingTrivia: Trivia?
        for element in node {
            var element = element
            if let pending = pendingTrivia {
                element = element.with(\.leadingTrivia, Self.keepingComments(of: pending, before: element.leadingTrivia))
                pendingTrivia = nil
            }
            guard case .switchCase(let switchCase) = element, case .case(let label) = switchCase.label else {
                cases.append(element)
                continue
            }
            let items = label.caseItems.filter { item in
                guard let pattern = item.pattern.as(ExpressionPatternSyntax.self) else { return true }
                return !isFlagReference(pattern.expression)
            }
            if items.count == label.caseItems.count {
                cases.append(element)
            } else if items.isEmpty {
                notes.append("removed a switch case")
                if element.leadingTrivia.contains(where: \.isComment) { pendingTrivia = element.leadingTrivia }
            } else {
                notes.append("removed a switch case pattern")
                let newLabel = label.with(\.caseItems, Self.withCommas(Array(items), original: label.caseItems))
                cases.append(.switchCase(switchCase.with(\.label, .case(newLabel))))
            }
        }
        return super.visit(SwitchCaseListSyntax(cases))
    }

    override func visit(_ node: ArrayElementListSyntax) -> ArrayElementListSyntax {
        let kept = node.filter { !isFlagReference($0.expression) }
        guard kept.count != node.count else { return super.visit(node) }
        notes.append("removed the flag from a list")
        return super.visit(Self.withCommas(Array(kept), original: node))
    }
}
