/// Sessions: a new session of the app's ``FlagEventRecorder`` makes the next read of each remote
/// value an exposure again.
extension FlagEngine: FlagExposureRearming {
    /// Sets the out-of-line bit on the read mark of every flag whose value came from the server,
    /// as publishing does, so that its next read records an exposure (the recorder's new session
    /// has forgotten the previous one's). Checks keep counting in between; nothing is resolved.
    func rearmExposures() {
        state.withLock { state in
            guard state.setup?.eventRecorder != nil else { return }
            let table = state.table
            for index in 0..<table.count where table.layers[index] == .remote {
                slots.setMark(UInt64(slots.counterOffset(of: index)) | FlagReadMarks.slow, at: index)
            }
        }
    }
}
