/// A non-blocking message the app may show (a banner, a footnote in settings) when remote
/// values could not be loaded. Its text is safe for users: no codes, URLs or identifiers.
public struct RemoteNotice: Sendable, Hashable, CustomStringConvertible {
    /// What the notice is about.
    public enum Kind: String, Sendable, Hashable {
        /// Nothing was ever loaded: the app runs on its built-in settings.
        case usingDefaults
        /// The server refused the app; settings won't update until it is set up again.
        case updatesStopped
    }

    /// What the notice is about.
    public var kind: Kind
    /// An English sentence to show, or to replace with the app's own localised text by `kind`.
    public var message: String

    /// The notice of `kind`, with its English message.
    public init(kind: Kind) {
        self.kind = kind
        switch kind {
        case .usingDefaults:
            message = "Some settings couldn't be loaded. The app is using its built-in settings for now."
        case .updatesStopped:
            message = "Settings can't be updated right now. The app keeps working with the settings it has."
        }
    }

    /// The message.
    public var description: String { message }
}
