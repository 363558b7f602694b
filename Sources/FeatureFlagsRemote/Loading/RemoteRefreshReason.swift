/// Who asked for a refresh, which decides whether it may skip the wait after a failure.
///
/// After a failure the loader backs off (``RefreshRetryPolicy``): the retry timer sends the next
/// request, and nothing else does before it, so ten foreground returns during an outage send no
/// more requests than one. A person who explicitly asks for fresh values is the exception,
/// once per backoff step:
///
/// ```swift
/// try await loader.refresh(reason: .userInitiated)   // pull to refresh, a "Retry" button
/// try await loader.refresh()                         // the app's own refresh: .automatic
/// ```
///
/// Nothing skips the server's `Retry-After` (429) or a stop after 401/403.
public enum RemoteRefreshReason: Sendable, Hashable {
    /// The app asked (its own timer, a settings screen appearing, `refreshRemoteValues()`):
    /// waits out any backoff, and throws ``RemoteLoadError/Code/backingOff`` inside it.
    case automatic
    /// A person asked: may skip the backoff wait once per backoff step (a step ends when the
    /// retry timer sends its request).
    case userInitiated
}
