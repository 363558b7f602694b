extension FlagDebugModel {
    /// The build configuration, whether overrides apply, the remote values in effect (with the
    /// loader's state, last fetch and error when the app passed it as `remote`) and the
    /// diagnostics.
    public var status: FlagDebugStatus {
        FlagDebugStatus(
            buildConfiguration: engine.buildConfiguration, overridesPermitted: engine.overridesPermitted,
            remoteSource: engine.remoteSource, hasPendingRemoteValues: engine.hasPendingRemoteValues,
            remote: remote?.debugRemoteStatus, diagnostics: engine.diagnostics)
    }

    /// Applies remote values waiting for a safe point, so they can be tried at once.
    public func applyPendingRemoteValues() {
        engine.applyPendingRemoteValues()
    }

    /// Asks the remote provider for fresh values.
    public func refreshRemoteValues() async {
        await engine.refreshRemoteValues()
    }
}

extension FlagDebugModel {
    /// Whether a gesture (a shake, a long press) may open the menu: in every build configuration
    /// but ``BuildConfiguration/release``, so App Store users never stumble on it. Observed.
    public var opensOnGesture: Bool {
        engine.buildConfiguration.map { $0 != .release } ?? false
    }
}
