import FlagServerModel
import HTTPTypes

extension ConsoleAccounts {
    /// The actor recorded for users created, and roles changed, by single sign-on.
    public static let singleSignOnActor = "single sign-on"

    /// Signs in the person an OpenID provider vouched for, as the console user `name`: created
    /// at the first sign-in with `role`, given `role` again when the provider's claim changed, and
    /// refused when an admin disabled the user.
    ///
    /// A user created this way has a generated password nobody is told: it signs in through the
    /// provider only (unless an admin resets its password).
    func signIn(singleSignOn name: String, role: ConsoleRole) async throws(OIDCFailure) -> SignedIn {
        func stored(_ error: AdminError) -> OIDCFailure {
            OIDCFailure(
                .serviceUnavailable, message: "The console cannot read or store its users right now. Try again in a moment.",
                reason: "console users: \(error)")
        }
        var user: ConsoleUser
        do throws(AdminError) {
            if let existing = try await users().first(where: { $0.name == name }) {
                user = existing
            } else {
                do throws(AdminError) {
                    user = try await createUser(
                        name: name, password: Self.generatedPassword() + Self.generatedPassword(), role: role, actor: Self.singleSignOnActor)
                } catch .conflict {
                    // Created by a sign-in at the same time (or on another replica).
                    guard let existing = try await users().first(where: { $0.name == name }) else { throw AdminError.conflict(name) }
                    user = existing
                }
            }
        } catch {
            throw stored(error)
        }
        guard user.disabledAt == nil else {
            throw OIDCFailure(
                .forbidden, message: "Your console account “\(name)” is disabled. Ask a console admin to enable it.",
                reason: "the console user is disabled")
        }
        if user.role != role {
            do throws(AdminError) {
                user = try await updateUser(name, role: role, actor: Self.singleSignOnActor)
            } catch .conflict {
                throw OIDCFailure(
                    .forbidden,
                    message: "Your identity provider now gives you the role \(role.rawValue), but you are this console's last active admin. Ask for another admin first.",
                    reason: "the role claim would demote the last active admin")
            } catch {
                throw stored(error)
            }
            guard user.disabledAt == nil else {
                throw OIDCFailure(.forbidden, message: "Your console account “\(name)” is disabled.", reason: "the console user is disabled")
            }
        }
        do throws(AdminError) { return try await startSession(for: user) } catch { throw stored(error) }
    }
}
