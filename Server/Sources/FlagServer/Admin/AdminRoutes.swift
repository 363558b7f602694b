import FlagEvaluation
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// The JSON admin API under `/admin/v1`: every read and write of flags, environments, segments,
/// revisions, audit, revert and tokens. Writes go through ``FlagAdmin``.
struct AdminRoutes: Sendable {
    let admin: FlagAdmin
    let authenticator: RequestAuthenticator
    let limits: ServerLimits
    /// The console's users, managed through `/admin/v1/users`; `nil` when the store keeps none.
    var accounts: ConsoleAccounts? = nil
    /// Where the events apps send are kept (insights read it); `nil` when the server takes none.
    var eventStore: (any FlagEventStore)? = nil
    var now: @Sendable () -> Date = Date.init
    /// The removal evidence of environments, from the server's event store (if any).
    var evidence = FlagEvidenceCache(store: nil, now: Date.init)
    /// Running experiments' results, counted in the background; `nil` where the event store
    /// computes none (``ExperimentResultsCache``).
    var experimentResults: ExperimentResultsCache? = nil
    /// How old the background-counted results a page reads may be before it counts for itself.
    var experimentResultsMaximumAge: Duration = ExperimentResultsRefreshService.defaultInterval * 2
    /// Webhook endpoints (`/admin/v1/webhooks`); `nil` when the store keeps none.
    var webhooks: WebhookAdministration? = nil

    static let all = TokenIssuer.allEnvironments

    func register(on router: Router<BasicRequestContext>) {
        // Authentication comes first for every admin route: no handler runs (or looks anything
        // up) for a request without an admin token.
        let group = router.group("/admin/v1").add(middleware: AuthenticationMiddleware(authenticator: authenticator, role: .admin))

        group.get("/environments") { request, _ in
            _ = try authenticator.authorize(request, role: .admin, environment: nil)
            let state = await admin.state
            return JSONBody.response(state.orderedEnvironmentKeys.compactMap { state.environments[$0] }.map {
                AdminResponses.Environment(key: $0.key, revision: $0.revision)
            })
        }
        group.post("/environments") { request, _ in
            let token = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let body = try await JSONBody.decode(AdminRequests.CreateEnvironment.self, from: request, limit: limits.maximumAdminBytes)
            return try await write(token, reason: body.reason, status: .created) { _ in [.createEnvironment(body.key)] }
        }

        group.get("/flags") { request, _ in
            _ = try authenticator.authorize(request, role: .admin, environment: nil)
            return JSONBody.response(await admin.state.flags.values.sorted { $0.key < $1.key })
        }
        group.get("/flags/:key") { request, context in
            _ = try authenticator.authorize(request, role: .admin, environment: nil)
            let key = try context.parameters.require("key")
            guard let flag = await admin.state.flags[key] else { throw Self.missing("flag \"\(key)\"") }
            return JSONBody.response(flag)
        }
        registerDefinitionRoutes(on: group)
        registerUserRoutes(on: group)
        registerStatisticsRoutes(on: group)
        registerInsightsRoutes(on: group)
        registerEvidenceRoutes(on: group)
        registerApprovalRoutes(on: group)
        registerExperimentRoutes(on: group)
        registerWebhookRoutes(on: group)
        registerScheduleRoutes(on: group)
        registerRolloutRoutes(on: group)
        registerRolloutAttributionRoutes(on: group)
        group.put("/flags/:key") { request, context in
            let token = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let key = try context.parameters.require("key")
            let body = try await JSONBody.decode(AdminRequests.PutFlag.self, from: request, limit: limits.maximumAdminBytes)
            return try await write(token, reason: body.reason) { state in [body.change(key: key, current: state.flags[key])] }
        }
        group.delete("/flags/:key") { request, context in
            let token = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let key = try context.parameters.require("key")
            return try await write(token, reason: request.uri.queryParameters["reason"].map(String.init)) { _ in
                [.deleteFlag(key)]
            }
        }

        // Archiving and restoring are writes of every environment at once, as deleting is.
        group.post("/flags/:key/archive") { request, context in
            try await changeLifecycle(request, context, archive: true)
        }
        group.post("/flags/:key/restore") { request, context in
            try await changeLifecycle(request, context, archive: false)
        }

        group.get("/environments/:environment/flags") { request, context in
            let environment = try context.parameters.require("environment")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            let state = await admin.state
            guard let env = state.environments[environment] else { throw Self.missing("environment \"\(environment)\"") }
            return JSONBody.response(state.flags.values.sorted { $0.key < $1.key }.compactMap { flag in
                env.settings[flag.key].map { AdminResponses.EnvironmentFlag(flag: flag, settings: $0, revision: env.revision) }
            })
        }
        group.get("/environments/:environment/flags/:key") { request, context in
            let environment = try context.parameters.require("environment")
            let key = try context.parameters.require("key")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            let state = await admin.state
            guard let env = state.environments[environment] else { throw Self.missing("environment \"\(environment)\"") }
            guard let flag = state.flags[key], let settings = env.settings[key] else { throw Self.missing("flag \"\(key)\"") }
            return JSONBody.response(AdminResponses.EnvironmentFlag(flag: flag, settings: settings, revision: env.revision))
        }
        group.put("/environments/:environment/flags/:key/settings") { request, context in
            let environment = try context.parameters.require("environment")
            let key = try context.parameters.require("key")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            let body = try await JSONBody.decode(AdminRequests.PutSettings.self, from: request, limit: limits.maximumAdminBytes)
            let settings = body.settings
            return try await write(token, reason: body.reason) { _ in
                [.putSettings(environment: environment, flag: key, settings)]
            }
        }
        group.patch("/environments/:environment/flags/:key/settings") { request, context in
            let environment = try context.parameters.require("environment")
            let key = try context.parameters.require("key")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            let mediaType = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            guard mediaType == "application/merge-patch+json" || mediaType == "application/json" else {
                throw APIError(
                    .unsupportedMediaType, code: "unsupported_media_type",
                    message: "Content-Type: send a JSON Merge Patch as application/merge-patch+json, got \(mediaType ?? "none")",
                    headers: [.acceptPatch: "application/merge-patch+json"])
            }
            let body = try await JSONBody.decode(SettingsPatch.self, from: request, limit: limits.maximumAdminBytes)
            return try await write(token, reason: body.reason) { state throws(AdminError) in
                guard state.environments[environment] != nil else { throw .notFound("environment \"\(environment)\" does not exist") }
                guard let current = state.environments[environment]?.settings[key] else {
                    throw .notFound("flag \"\(key)\" does not exist")
                }
                return [.putSettings(environment: environment, flag: key, try body.applied(to: current))]
            }
        }
        group.post("/environments/:environment/flags/:key/revert") { request, context in
            let environment = try context.parameters.require("environment")
            let key = try context.parameters.require("key")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            let body = try await JSONBody.decode(AdminRequests.Revert.self, from: request, limit: limits.maximumAdminBytes)
            let history = try await audit(environment: environment, key: key, limit: 10_000)
            let reason = body.reason ?? "revert \"\(key)\" to revision \(body.revision)"
            let revert = ChangeSet.Revert(environment: environment, revision: body.revision)
            return try await write(token, reason: reason, revert: revert) { state throws(AdminError) in
                try RevertPlanner.changes(
                    reverting: key, in: environment, to: body.revision, history: history, state: state)
            }
        }
        group.post("/environments/:environment/flags/:key/validate") { request, context in
            let environment = try context.parameters.require("environment")
            let key = try context.parameters.require("key")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            let body = try await JSONBody.decode(AdminRequests.PutSettings.self, from: request, limit: limits.maximumAdminBytes)
            let settings = body.settings
            do {
                let problems = try SettingsPreview.problems(of: settings, flag: key, environment: environment, in: await admin.state)
                return JSONBody.response(AdminResponses.Validation(problems: problems))
            } catch let error as AdminError {
                throw APIError(error)
            }
        }
        group.post("/environments/:environment/flags/:key/preview") { request, context in
            let environment = try context.parameters.require("environment")
            let key = try context.parameters.require("key")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            let body = try await JSONBody.decode(AdminRequests.Preview.self, from: request, limit: limits.maximumAdminBytes)
            let state = await admin.state
            guard let flag = state.flags[key], let current = state.environments[environment]?.settings[key] else {
                throw Self.missing(state.environments[environment] == nil ? "environment \"\(environment)\"" : "flag \"\(key)\"")
            }
            do {
                var settings = FlagSettings(
                    enabled: body.enabled ?? current.enabled, defaultVariant: body.defaultVariant ?? current.defaultVariant,
                    targeting: body.targeting ?? current.targeting)
                if let percentages = body.percentages { settings.targeting = try SettingsPreview.rollout(percentages, flag: flag) }
                let result = try SettingsPreview.preview(
                    settings, flag: key, environment: environment, in: state,
                    targetingKeys: body.targetingKeys ?? SettingsPreview.sampleKeys(), bucketing: admin.publisher.bucketing,
                    now: Date())
                return JSONBody.response(result)
            } catch let error as AdminError {
                throw APIError(error)
            }
        }
        group.post("/environments/:environment/flags/:key/copy") { request, context in
            let environment = try context.parameters.require("environment")
            let key = try context.parameters.require("key")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            let body = try await JSONBody.decode(AdminRequests.Copy.self, from: request, limit: limits.maximumAdminBytes)
            guard token.environment == Self.all || token.environment == body.from else {
                throw APIError(
                    .forbidden, code: "forbidden",
                    message: "token \"\(token.id)\" is for environment \"\(token.environment)\", not \"\(body.from)\"")
            }
            let reason = body.reason ?? "copy \"\(key)\" from \(body.from)"
            return try await write(token, reason: reason) { state throws(AdminError) in
                try EnvironmentCopy.changes(flag: key, from: body.from, to: environment, in: state)
            }
        }
        group.post("/environments/:environment/evaluate") { request, context in
            let environment = try context.parameters.require("environment")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            let body = try await JSONBody.decode(AdminRequests.Evaluate.self, from: request, limit: limits.maximumEvaluationBytes)
            let state = await admin.state
            do {
                let evaluationContext = try FlagExplainer.checkedContext(body.context ?? .object([:]))
                guard let flags = FlagExplainer.explain(
                    environment: environment, state: state, context: evaluationContext, bucketing: admin.publisher.bucketing, now: Date())
                else { throw Self.missing("environment \"\(environment)\"") }
                return JSONBody.response(AdminResponses.Evaluation(
                    environment: environment, revision: state.environments[environment]?.revision ?? 0, flags: flags))
            } catch let error as AdminError {
                throw APIError(error)
            }
        }

        group.get("/environments/:environment/segments") { request, context in
            let environment = try context.parameters.require("environment")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            guard let env = await admin.state.environments[environment] else {
                throw Self.missing("environment \"\(environment)\"")
            }
            return JSONBody.response(env.segments)
        }
        group.put("/environments/:environment/segments/:key") { request, context in
            let environment = try context.parameters.require("environment")
            let key = try context.parameters.require("key")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            let body = try await JSONBody.decode(AdminRequests.PutSegment.self, from: request, limit: limits.maximumAdminBytes)
            return try await write(token, reason: body.reason) { _ in
                [.putSegment(environment: environment, key: key, rule: body.rule)]
            }
        }
        group.delete("/environments/:environment/segments/:key") { request, context in
            let environment = try context.parameters.require("environment")
            let key = try context.parameters.require("key")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            return try await write(token, reason: request.uri.queryParameters["reason"].map(String.init)) { _ in
                [.deleteSegment(environment: environment, key: key)]
            }
        }

        group.get("/environments/:environment/revisions") { request, context in
            let environment = try context.parameters.require("environment")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            // In 0…1000, as the OpenAPI document says (DocumentedOperationsMiddleware checked it).
            let limit = request.uri.queryParameters["limit"].flatMap { Int($0) } ?? 100
            do {
                return JSONBody.response(try await admin.store.revisions(environment: environment, limit: limit))
            } catch let error as StoreError {
                throw APIError(AdminError(store: error))
            }
        }
        group.get("/environments/:environment/audit") { request, context in
            let environment = try context.parameters.require("environment")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            // In 0…1000, as the OpenAPI document says (DocumentedOperationsMiddleware checked it).
            let limit = request.uri.queryParameters["limit"].flatMap { Int($0) } ?? 100
            let key = request.uri.queryParameters["key"].map(String.init)
            let entries = try await audit(environment: environment, key: key, limit: limit)
            let flags = await admin.state.flags
            return JSONBody.response(entries.map { AuditRedaction.redacted($0, flags: flags) })
        }

        group.get("/environments/:environment/export") { request, context in
            let environment = try context.parameters.require("environment")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            guard let document = await admin.state.flagdDocument(environment: environment) else {
                throw Self.missing("environment \"\(environment)\"")
            }
            return JSONBody.response(data: Data(document.serialized(prettyPrinted: true).utf8))
        }
        group.post("/environments/:environment/import") { request, context in
            let environment = try context.parameters.require("environment")
            let token = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let formatName = request.uri.queryParameters["format"].map(String.init) ?? "flagd"
            guard let format = FlagdImporter.Format(rawValue: formatName) else {
                throw APIError(.badRequest, code: "bad_request", message: "format: must be flagd or manifest, got \"\(formatName)\"")
            }
            let dryRun = request.uri.queryParameters["dryRun"] == "true"
            let buffer = try await JSONBody.collect(request, limit: limits.maximumImportBytes)
            let imported: [StateChange]
            let unread: [ValidationError]
            do {
                (imported, unread) = try FlagdImporter.reading(String(buffer: buffer), format: format, into: environment)
            } catch let error as AdminError {
                throw APIError(error)
            }
            // Flags that do not read are refused whole; a dry run names them beside the rest.
            if !dryRun, !unread.isEmpty { throw APIError(AdminError.invalid(unread)) }
            let state = await admin.state
            guard state.environments[environment] != nil else { throw Self.missing("environment \"\(environment)\"") }
            let drafts: [AuditDraft]
            let problems: [ValidationError]
            let warnings: [ValidationError]
            do {
                let transition = try state.transition(applying: FlagdImporter.keepingCodeDefaults(imported, of: state))
                drafts = transition.audit
                // A real import is validated by the write itself (and refused whole with its problems).
                // A rule returning a variant its flag lacks is imported, as flagd loads it, and warned about.
                problems =
                    dryRun
                    ? StateValidator.problems(
                        in: transition.state, changedBy: transition.delta,
                        missingVariants: .importedInto(environment, elsewhereAddedSince: state))
                    : []
                warnings = StateValidator.missingVariantWarnings(
                    in: transition.state, changedBy: transition.delta, environment: environment)
            } catch let error as StoreError {
                throw APIError(AdminError(store: error))
            }
            if dryRun {
                return AdminResponses.ImportResult(
                    dryRun: true, changes: drafts, problems: unread + problems, revisions: [:], warnings: warnings
                ).response()
            }
            let reason = request.uri.queryParameters["reason"].map(String.init) ?? "import (\(format.rawValue))"
            let revisions: [String: Int]
            do {
                revisions = try await admin.write(
                    actor: "token \(token.name) (\(token.id))", reason: reason, importedEnvironment: environment
                ) { current in
                    FlagdImporter.keepingCodeDefaults(imported, of: current)
                }
            } catch let error as AdminError {
                throw APIError(error)
            }
            return AdminResponses.ImportResult(
                dryRun: false, changes: drafts, problems: [], revisions: revisions, warnings: warnings
            ).response()
        }

        group.get("/tokens") { request, _ in
            let token = try authenticator.authorize(request, role: .admin, environment: nil)
            let records = authenticator.publisher.current.tokens.values
                .filter { token.environment == Self.all || $0.environment == token.environment }
                .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
            return JSONBody.response(records.map(AdminResponses.TokenSummary.init))
        }
        group.post("/tokens") { request, _ in
            let caller = try authenticator.authorize(request, role: .admin, environment: nil)
            let body = try await JSONBody.decode(AdminRequests.CreateToken.self, from: request, limit: limits.maximumAdminBytes)
            guard caller.environment == Self.all || caller.environment == body.environment else {
                throw APIError(
                    .forbidden, code: "forbidden",
                    message: "token \"\(caller.id)\" is for environment \"\(caller.environment)\", not \"\(body.environment)\"")
            }
            do {
                let (token, record) = try await admin.createToken(name: body.name, environment: body.environment, role: body.role)
                return JSONBody.response(
                    AdminResponses.CreatedToken(token: token, record: .init(record)), status: .created)
            } catch let error as AdminError {
                throw APIError(error)
            }
        }
        group.delete("/tokens/:id") { request, context in
            let caller = try authenticator.authorize(request, role: .admin, environment: nil)
            let id = try context.parameters.require("id")
            guard let record = authenticator.publisher.current.tokens[id] else { throw Self.missing("token \"\(id)\"") }
            guard caller.environment == Self.all || caller.environment == record.environment else {
                throw APIError(
                    .forbidden, code: "forbidden",
                    message: "token \"\(caller.id)\" is for environment \"\(caller.environment)\", not \"\(record.environment)\"")
            }
            do {
                try await admin.revokeToken(id: id)
            } catch let error as AdminError {
                throw APIError(error)
            }
            return Response(status: .noContent)
        }
    }

    static func missing(_ what: String) -> APIError {
        APIError(.notFound, code: "not_found", message: "\(what) does not exist")
    }

    func audit(environment: String, key: String?, limit: Int) async throws -> [AuditEntry] {
        guard await admin.state.environments[environment] != nil else { throw Self.missing("environment \"\(environment)\"") }
        do {
            return try await admin.store.audit(environment: environment, key: key, limit: limit)
        } catch {
            throw APIError(AdminError(store: error))
        }
    }

    /// `POST /admin/v1/flags/{key}/archive` or `…/restore`.
    func changeLifecycle(_ request: Request, _ context: BasicRequestContext, archive: Bool) async throws -> Response {
        let token = try authenticator.authorize(request, role: .admin, environment: Self.all)
        let key = try context.parameters.require("key")
        let body = try await JSONBody.decode(AdminRequests.Lifecycle.self, from: request, limit: limits.maximumAdminBytes)
        let change: StateChange = archive ? .archiveFlag(key) : .restoreFlag(key)
        return try await write(token, reason: body.reason ?? "\(archive ? "archive" : "restore") \"\(key)\"") { _ in [change] }
    }

    /// Runs a write as `token`, answering `{"revisions": …}`.
    func write(
        _ token: TokenRecord, reason: String?, status: HTTPResponse.Status = .ok, revert: ChangeSet.Revert? = nil,
        _ makeChanges: @Sendable (ServerState) throws(AdminError) -> [StateChange]
    ) async throws -> Response {
        do {
            let revisions = try await admin.write(
                actor: "token \(token.name) (\(token.id))", reason: reason, revert: revert, makeChanges)
            return JSONBody.response(AdminResponses.WriteResult(revisions: revisions), status: status)
        } catch {
            throw APIError(error)
        }
    }
}
