import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Console sign-in through the configured OpenID provider (``OIDCSignIn``):
/// `GET /console/login/sso` sends the browser to the provider, which sends it back to
/// `GET /console/login/sso/callback`.
extension ConsoleRoutes {
    /// Holds the random value that binds a pending sign-in's `state` to the browser that started it.
    static let singleSignOnCookie = "flag_console_sso"

    func registerSingleSignOn(on router: Router<BasicRequestContext>) {
        guard let singleSignOn else { return }
        router.get("/console/login/sso") { request, _ in
            // Each start holds a pending sign-in (bounded in total): one client may not take them all.
            if let refusal = signInLimiter.acquire(address: trustedProxies.limitKey(of: request.headers)) {
                return Self.signInRefusal(
                    .tooManyRequests, retryAfter: refusal.retryAfter,
                    "Too many sign-in attempts from this address. Try again in \(refusal.retryAfter) s.")
            }
            let start: OIDCSignIn.Start
            do throws(OIDCFailure) {
                start = try await singleSignOn.start()
            } catch {
                return singleSignOnRefusal(error, request: request, logger: singleSignOn.logger)
            }
            var response = Self.redirect(start.location)
            response.setCookie(bindingCookie(start.binding, request: request, maxAge: Int(singleSignOn.configuration.pendingLifetime)))
            return response
        }
        router.get("/console/login/sso/callback") { request, _ in
            let query = Self.query(of: request)
            let signedIn: ConsoleAccounts.SignedIn
            do throws(OIDCFailure) {
                signedIn = try await singleSignOn.finish(
                    state: query["state"], code: query["code"], error: query["error"],
                    binding: request.cookies[Self.singleSignOnCookie]?.value)
            } catch {
                return singleSignOnRefusal(error, request: request, logger: singleSignOn.logger)
            }
            singleSignOn.logger.info("console single sign-on", metadata: ["role": "\(signedIn.user.role.rawValue)"])
            // A page, not a redirect: the browser arrived here from the provider's site, and a
            // SameSite=Strict session cookie is sent only on a navigation this site starts.
            let html = """
                <!DOCTYPE html>
                <html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=/console/flags"><title>Signed in</title></head>
                <body><p>Signed in. <a href="/console/flags" id="continue">Continue to the console</a></p></body></html>

                """
            var headers = ConsoleRenderer.securityHeaders
            headers[.contentType] = "text/html; charset=utf-8"
            var response = Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
            response.setCookie(sessionCookie(signedIn.sessionID, request: request, maxAge: Int(accounts.sessionLifetime)))
            response.setCookie(bindingCookie("", request: request, maxAge: 0))
            return response
        }
    }

    /// Lax, not Strict: the provider's redirect back is a navigation from its site.
    func bindingCookie(_ value: String, request: Request, maxAge: Int) -> Cookie {
        Cookie(
            name: Self.singleSignOnCookie, value: value, maxAge: maxAge, path: "/console/login/sso", secure: isSecure(request),
            httpOnly: true, sameSite: .lax)
    }

    func singleSignOnRefusal(_ failure: OIDCFailure, request: Request, logger: Logger) -> Response {
        logger.notice("console single sign-on refused", metadata: ["reason": "\(failure.reason)"])
        var response = refusal(failure.status, failure.message, visitor: nil)
        response.setCookie(bindingCookie("", request: request, maxAge: 0))
        return response
    }
}
