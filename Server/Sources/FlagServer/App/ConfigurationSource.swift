import Foundation

/// Settings of the `flag-server` commands, each from its command-line option, else its environment
/// variable, else its default. `serve` (``ServerConfiguration``) and `relay` resolve through it, so
/// both read a variable and report a bad value the same way.
public struct ConfigurationSource: Sendable {
    /// The process's environment variables the settings fall back to.
    public let environment: [String: String]

    /// A source reading `environment` (usually `ProcessInfo.processInfo.environment`).
    public init(environment: [String: String]) {
        self.environment = environment
    }

    /// The option's text, else the variable's (an empty variable counts as unset).
    public func text(_ option: String?, _ variable: String) -> String? {
        option ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A whole number in `range`: the option, else the variable, else `value`.
    ///
    /// - Parameter optionName: The option's name without dashes, when it is not the variable's name
    ///   without `FLAG_SERVER_` (`FLAG_SERVER_TTL_SECONDS` → `ttl-seconds`).
    /// - Throws: ``ConfigurationError`` naming the option (when given) or the variable and the value.
    public func integer(
        _ option: Int?, _ variable: String, optionName: String? = nil, default value: Int, range: ClosedRange<Int>
    ) throws(ConfigurationError) -> Int {
        let resolved: Int
        if let option {
            resolved = option
        } else if let text = text(nil, variable) {
            guard let parsed = Int(text) else { throw ConfigurationError("\(variable)=\(text.prefix(32)) is not a whole number") }
            resolved = parsed
        } else {
            resolved = value
        }
        guard range.contains(resolved) else {
            let name = option == nil ? variable : "--" + (optionName ?? Self.optionName(of: variable))
            throw ConfigurationError("\(name) must be in \(range.lowerBound)…\(range.upperBound), got \(resolved)")
        }
        return resolved
    }

    /// `FLAG_SERVER_DATA_DIRECTORY` → `data-directory`.
    static func optionName(of variable: String) -> String {
        variable.dropFirst("FLAG_SERVER_".count).lowercased().replacingOccurrences(of: "_", with: "-")
    }
}
