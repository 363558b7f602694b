import FlagEvaluation
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The web console under `/console`: server-rendered pages over the same ``FlagAdmin`` write
/// path, validators and audit as the admin API.
///
/// Every form carries a CSRF token (`_csrf`, or the `X-CSRF-Token` header for the console's
/// JSON calls) derived from the session id; sessions live in the store, so any replica accepts
/// them and a sign-out ends them everywhere.
struct ConsoleRoutes: Sendable {
    let admin: FlagAdmin
    let accounts: ConsoleAccounts
    let renderer: ConsoleRenderer
    let options: ConsoleOptions
    let limits: ServerLimits
    /// Bounds sign-in attempts per account, per client address and in total.
    let signInLimiter: SignInLimiter
    /// The proxies whose forwarding headers name the client a sign-in limit counts.
    let trustedProxies: TrustedProxies
    let now: @Sendable () -> Date
    /// Sign-in through an OpenID provider, when configured (``ConsoleOptions/singleSignOn``).
    var singleSignOn: OIDCSignIn? = nil
    /// Where the events apps send are kept (the flag page's insights); `nil` when the server takes none.
    var eventStore: (any FlagEventStore)? = nil
    /// The removal evidence the grid shows and filters on (``FlagEvidence``).
    var evidence = FlagEvidenceCache(store: nil, now: Date.init)
    /// Running experiments' results, counted in the background; `nil` where the event store
    /// computes none (``ExperimentResultsCache``).
    var experimentResults: ExperimentResultsCache? = nil
    /// How old the background-counted results a page reads may be before it counts for itself.
    var experimentResultsMaximumAge: Duration = ExperimentResultsRefreshService.defaultInterval * 2
    /// The flags grid's filter choices and last changes, kept while the revisions stay.
    let gridCache = FlagGridCache()
    /// Webhook endpoints (`/console/webhooks`); `nil` when the store keeps none.
    var webhooks: WebhookAdministration? = nil

    static let sessionCookie = "flag_console_session"
    static let loginCookie = "flag_console_login"
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    /// The signed-in user of a request.
    struct Visitor {
        var user: ConsoleUser
        var sessionID: String
        var csrf: String { ConsoleAccounts.csrfToken(sessionID: sessionID) }
        var canEdit: Bool { user.role >= .editor }
    }

    func register(on router: Router<BasicRequestContext>) {
        // A person opening the server's address lands in the console.
        router.get("/") { _, _ in Self.redirect("/console") }
        router.get("/console") { _, _ in Self.redirect("/console/flags") }
        router.get("/console/assets/:name") { _, context in
            let name = try context.parameters.require("name")
            guard let asset = renderer.assets[name] else { throw ConsoleRoutes.notFound("asset \"\(name)\"") }
            return Response(
                status: .ok, headers: [.contentType: asset.type, .cacheControl: "public, max-age=300", .xContentTypeOptions: "nosniff"],
                body: ResponseBody(byteBuffer: asset.body))
        }
        router.get("/console/login") { request, _ in loginPage(request, error: nil) }
        router.post("/console/login") { request, _ in try await signIn(request) }
        router.post("/console/logout") { request, _ in try await signOut(request) }
        registerSingleSignOn(on: router)
        registerFlagPages(on: router)
        registerHistory(on: router)
        registerEvaluate(on: router)
        registerEnvironments(on: router)
        registerSegments(on: router)
        registerChangeRequests(on: router)
        registerExperiments(on: router)
        registerMetrics(on: router)
        registerSchedules(on: router)
        registerRollouts(on: router)
        registerTokens(on: router)
        registerUsers(on: router)
        registerWebhooks(on: router)
    }

    // MARK: - Sessions

    /// The visitor of `request`, or `nil` without a live session.
    func visitor(_ request: Request) async throws -> Visitor? {
        guard let sessionID = request.cookies[Self.sessionCookie]?.value, !sessionID.isEmpty else { return nil }
        do {
            guard let user = try await accounts.user(sessionID: sessionID) else { return nil }
            return Visitor(user: user, sessionID: sessionID)
        } catch {
            throw APIError(error)
        }
    }

    /// The visitor of a page request, or the redirect to the sign-in page.
    func page(_ request: Request, _ body: (Visitor) async throws -> Response) async throws -> Response {
        guard let visitor = try await visitor(request) else { return Self.redirect("/console/login") }
        return try await body(visitor)
    }

    /// Runs a form post: signed in, the right CSRF token, and a role that may change flags.
    func change(
        _ request: Request, needs role: ConsoleRole = .editor, _ body: (Visitor, ConsoleForm) async throws -> Response
    ) async throws -> Response {
        guard let visitor = try await visitor(request) else {
            return refusal(.unauthorized, "Your session has ended. Sign in again.", visitor: nil)
        }
        let form = try await ConsoleForm.read(request, limit: limits.maximumAdminBytes)
        guard ConsoleAccounts.isValidCSRF(form["_csrf"] ?? request.headers[Self.csrfHeader], sessionID: visitor.sessionID) else {
            return refusal(.forbidden, "The form's CSRF token is missing or wrong. Reload the page and try again.", visitor: visitor)
        }
        guard visitor.user.role >= role else {
            return refusal(
                .forbidden, "Your role (\(visitor.user.role.rawValue)) cannot change anything here; this needs \(role.rawValue).",
                visitor: visitor)
        }
        return try await body(visitor, form)
    }

    func refusal(_ status: HTTPResponse.Status, _ message: String, visitor: Visitor?) -> Response {
        renderer.page("refused", layout(visitor, title: "Refused").merging(["message": message]) { $1 }, status: status)
    }

    func sessionCookie(_ value: String, request: Request, maxAge: Int) -> Cookie {
        Cookie(
            name: Self.sessionCookie, value: value, maxAge: maxAge, path: "/", secure: isSecure(request), httpOnly: true,
            sameSite: .strict)
    }

    func isSecure(_ request: Request) -> Bool {
        options.secureCookies || request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
    }

    func loginPage(_ request: Request, error: String?, name: String = "", status: HTTPResponse.Status? = nil) -> Response {
        let token = ConsoleAccounts.randomHex(bytes: 16)
        var context = layout(nil, title: "Sign in")
        context["csrf"] = token
        context["error"] = error
        context["name"] = name
        context["passwords"] = options.singleSignOn?.allowsPasswords ?? true
        if let sso = options.singleSignOn { context["sso"] = ["name": sso.displayName] }
        var response = renderer.page("login", context, status: status ?? (error == nil ? .ok : .unauthorized))
        response.setCookie(Cookie(
            name: Self.loginCookie, value: token, maxAge: 3600, path: "/console/login", secure: isSecure(request),
            httpOnly: true, sameSite: .strict))
        return response
    }

    func signIn(_ request: Request) async throws -> Response {
        if let sso = options.singleSignOn, !sso.allowsPasswords {
            return refusal(.forbidden, "Password sign-in is turned off on this server: sign in with \(sso.displayName).", visitor: nil)
        }
        // Refused before any other work while the password pool is full: hammering sign-ins
        // costs a fixed small answer each, not a form parse and a page render. A browser with a
        // device cookie goes on: it may be the account's own (checked once the form is read),
        // whose check has a lane of its own.
        let deviceToken = request.cookies[SignInDevices.cookieName]?.value
        guard deviceToken != nil || accounts.passwordChecker.hasRoom else {
            return Self.signInRefusal(.serviceUnavailable, retryAfter: 2, Self.busyMessage)
        }
        let form = try await ConsoleForm.read(request, limit: 16 * 1024)
        guard let expected = request.cookies[Self.loginCookie]?.value, let presented = form["_csrf"],
            TokenIssuer.constantTimeEqual(Array(expected.utf8), Array(presented.utf8))
        else {
            return refusal(.forbidden, "The sign-in form's CSRF token is missing or wrong. Reload the page and try again.", visitor: nil)
        }
        let name = form["name"] ?? ""
        // A browser that signed in to this account before has a budget of its own: strangers
        // guessing at the account cannot lock its user out.
        let device = signInLimiter.devices.recognise(deviceToken, account: name)
        if let device {
            if let seconds = signInLimiter.devices.acquire(device) {
                return Self.signInRefusal(
                    .tooManyRequests, retryAfter: seconds, "Too many sign-in attempts from this browser. Try again in \(seconds) s.")
            }
        } else if let refusal = signInLimiter.acquire(account: name, address: trustedProxies.limitKey(of: request.headers)) {
            let whose =
                switch refusal {
                case .account: "for this account"
                case .address: "from this address"
                case .total: "on this server"
                }
            return Self.signInRefusal(
                .tooManyRequests, retryAfter: refusal.retryAfter,
                "Too many sign-in attempts \(whose). Try again in \(refusal.retryAfter) s.")
        }
        let outcome: ConsoleAccounts.PasswordSignIn
        do {
            outcome = try await accounts.signIn(
                name: name, password: form["password"] ?? "", knownBrowser: device != nil,
                admitCheck: { [signInLimiter] in device != nil ? nil : signInLimiter.acquireCheck()?.retryAfter })
        } catch .unavailable {
            return Self.signInRefusal(.serviceUnavailable, retryAfter: 2, Self.busyMessage)
        } catch {
            throw APIError(error)
        }
        let signedIn: ConsoleAccounts.SignedIn
        switch outcome {
        case .signedIn(let session): signedIn = session
        case .wrong: return loginPage(request, error: "The name or the password is wrong.", name: name)
        case .limited(let seconds):
            return Self.signInRefusal(.tooManyRequests, retryAfter: seconds, "Too many sign-in attempts on this server. Try again in \(seconds) s.")
        }
        var response = Self.redirect("/console/flags")
        response.setCookie(sessionCookie(signedIn.sessionID, request: request, maxAge: Int(accounts.sessionLifetime)))
        if device == nil {
            response.setCookie(Cookie(
                name: SignInDevices.cookieName, value: signInLimiter.devices.issue(account: signedIn.user.name),
                maxAge: Int(signInLimiter.devices.lifetime), path: "/console/login", secure: isSecure(request),
                httpOnly: true, sameSite: .strict))
        }
        return response
    }

    static let busyMessage = "The server is busy checking other sign-ins. Try again in a few seconds."

    /// A refused sign-in: a short fixed page (no template, no form), cheap to send however many
    /// attempts arrive, with a link back to the form.
    static func signInRefusal(_ status: HTTPResponse.Status, retryAfter: Int, _ message: String) -> Response {
        let html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Sign in</title></head>
            <body><p>\(message)</p><p><a href="/console/login">Back to sign-in</a></p></body></html>

            """
        var headers = ConsoleRenderer.securityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.retryAfter] = String(retryAfter)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    func signOut(_ request: Request) async throws -> Response {
        try await change(request, needs: .viewer) { visitor, _ in
            do { try await accounts.signOut(sessionID: visitor.sessionID) } catch let error as AdminError { throw APIError(error) }
            var response = Self.redirect("/console/login")
            response.setCookie(sessionCookie("signed-out", request: request, maxAge: 0))
            return response
        }
    }

    // MARK: - Pages

    /// The context every page's header and footer read.
    func layout(_ visitor: Visitor?, title: String, section: String = "") -> [String: Any] {
        var context: [String: Any] = ["title": title]
        if let visitor {
            context["user"] = ["name": visitor.user.name, "role": visitor.user.role.rawValue]
            context["csrf"] = visitor.csrf
            context["canEdit"] = visitor.canEdit
            if !visitor.canEdit {
                context["viewerNote"] = "You are signed in as a viewer: you can see everything and change nothing."
            }
            context["canManage"] = visitor.user.role >= .admin
            context["nav"] = ([
                ("flags", "Flags", "/console/flags"), ("evaluate", "Evaluate", "/console/evaluate"),
                ("history", "History", "/console/history"), ("environments", "Environments", "/console/environments"),
                ("segments", "Segments", "/console/segments"), ("experiments", "Experiments", "/console/experiments"),
                ("tokens", "Tokens", "/console/tokens"),
            ] + (visitor.user.role >= .admin ? [("users", "Users", "/console/users"), ("webhooks", "Webhooks", "/console/webhooks")] : [])).map { item in
                ["href": item.2, "label": item.1, "current": item.0 == section] as [String: Any]
            }
        }
        return context
    }

    /// The query of a page's URL, decoded as a browser encodes a GET form (`+` is a space).
    static func query(of request: Request) -> ConsoleForm {
        ConsoleForm(parsing: request.uri.query ?? "")
    }

    /// `values` without the empty strings of `keys`: Mustache renders a section for any string,
    /// even an empty one.
    static func omittingEmpty(_ values: [String: Any], _ keys: [String]) -> [String: Any] {
        values.filter { key, value in !(keys.contains(key) && (value as? String)?.isEmpty == true) }
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    static func notFound(_ what: String) -> APIError {
        APIError(.notFound, code: "not_found", message: "\(what) does not exist")
    }

    /// `text` percent-encoded for a URL path or query component.
    static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }
}
