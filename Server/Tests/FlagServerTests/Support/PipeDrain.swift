import Foundation

/// Reads a child process's output on a thread of its own, with blocking reads.
///
/// Not `FileHandle.readabilityHandler`: its teardown races the descriptor's close inside
/// libdispatch on Linux and crashed the test process in `_dispatch_event_loop_drain`
/// (swift-corelibs-libdispatch issue 949). A blocking read never registers the descriptor with
/// libdispatch, and a dedicated thread keeps the task pool free while many tests read at once.
enum PipeDrain {
    /// The chunks read from `pipe` until its end, as they arrive.
    static func chunks(of pipe: Pipe) -> AsyncStream<String> {
        let (chunks, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(64))
        let handle = pipe.fileHandleForReading
        let reader = Thread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                continuation.yield(String(decoding: data, as: UTF8.self))
            }
            continuation.finish()
        }
        reader.start()
        return chunks
    }

    /// Reads `pipe` to its end and discards it, so that the writer never blocks on a full pipe.
    static func discard(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        Thread { _ = handle.readDataToEndOfFile() }.start()
    }
}
