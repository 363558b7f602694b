import FlagServerModel

/// Copying a flag's configuration (on/off, default variant, rule) from one environment to
/// another. The admin API (`POST …/flags/{key}/copy`) and the console both call it inside a write.
enum EnvironmentCopy {
    static func changes(flag key: String, from source: String, to target: String, in state: ServerState) throws(AdminError) -> [StateChange] {
        guard source != target else { throw .badRequest("from: \"\(source)\" is the environment being written") }
        guard let from = state.environments[source] else { throw .notFound("environment \"\(source)\" does not exist") }
        guard state.environments[target] != nil else { throw .notFound("environment \"\(target)\" does not exist") }
        guard let settings = from.settings[key] else { throw .notFound("flag \"\(key)\" does not exist") }
        return [.putSettings(environment: target, flag: key, settings)]
    }
}
