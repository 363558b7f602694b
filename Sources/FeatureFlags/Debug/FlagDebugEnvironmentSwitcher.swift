/// The debug menu's environment switcher: the environments the app can talk to (dev, stage,
/// prod…), the one in use, and what choosing another does, which only the app knows (store the
/// choice and rebuild the remote loader, or relaunch).
///
/// The core knows nothing of remote loading; FeatureFlagsRemote builds one from its
/// `AppEnvironments` (`environments.debugSwitcher(current:select:)`), and any app can build one
/// from names and a closure.
///
/// ```swift
/// let switcher = FlagDebugEnvironmentSwitcher(names: ["dev", "stage", "prod"], current: "prod") { name in
///     UserDefaults.standard.set(name, forKey: "environment")
/// }
/// ```
public struct FlagDebugEnvironmentSwitcher: Sendable {
    /// One environment the menu offers.
    public struct Option: Sendable, Hashable, Identifiable {
        /// The name the app knows it by (`stage`).
        public var name: String
        /// A line under the name, such as the base URL; `nil` for none.
        public var detail: String?

        /// The option's ``name``, unique among the options.
        public var id: String { name }

        /// An option named `name`, with `detail` under it when given.
        public init(name: String, detail: String? = nil) {
            self.name = name
            self.detail = detail
        }
    }

    /// The environments offered, in the app's order.
    public let options: [Option]
    /// The environment in use when the menu was built.
    public let current: String
    /// What the menu says under the picker: what a switch does.
    public let footnote: String
    private let apply: @Sendable (String) -> Void

    /// A switcher over named environments.
    ///
    /// - Parameters:
    ///   - footnote: what choosing another environment does in this app.
    ///   - select: called with the chosen name when it differs from the current one.
    public init(
        options: [Option], current: String,
        footnote: String = "Switching environments reloads remote values from the chosen server.",
        select: @escaping @Sendable (String) -> Void
    ) {
        self.options = options
        self.current = current
        self.footnote = footnote
        self.apply = select
    }

    /// A switcher over environment names without details.
    public init(
        names: [String], current: String,
        footnote: String = "Switching environments reloads remote values from the chosen server.",
        select: @escaping @Sendable (String) -> Void
    ) {
        self.init(options: names.map { Option(name: $0) }, current: current, footnote: footnote, select: select)
    }

    /// Switches to the environment called `name`, if it is not `selected` already.
    ///
    /// - Parameter selected: the environment in use now (the picker's selection before the change).
    /// - Returns: whether the app was asked to switch.
    /// - Throws: ``FlagDebugEnvironmentError`` for a name that is not one of ``options``.
    @discardableResult
    public func select(_ name: String, from selected: String) throws(FlagDebugEnvironmentError) -> Bool {
        guard options.contains(where: { $0.name == name }) else {
            throw FlagDebugEnvironmentError(name: name, known: options.map(\.name))
        }
        guard name != selected else { return false }
        apply(name)
        return true
    }
}

/// An environment name the switcher does not offer.
public struct FlagDebugEnvironmentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name asked for.
    public var name: String
    /// The names the switcher offers.
    public var known: [String]

    /// The error for `name`, which is not among `known`.
    public init(name: String, known: [String]) {
        self.name = name
        self.known = known
    }

    /// A sentence naming the environment asked for and those the menu offers.
    public var description: String {
        "There is no environment '\(name)'; the menu offers \(known.joined(separator: ", "))."
    }
}
