// Processes: macOS and Linux (the CI) only.
#if os(macOS) || os(Linux)
import FeatureFlagsEvents
import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The event queue's crash helper (`flag-event-queue-crash-helper`, built beside the tests)
/// running as a process of its own: its report lines as they come, a way to let it go on past a
/// point, and SIGKILL.
final class CrashHelperProcess {
    /// The lines it writes on standard output; the sequence ends when the process is gone.
    let lines: AsyncStream<String>
    private let process = Process()
    private let input: FileHandle

    private final class BundleLocator {}

    /// The build products directory, where the helper is built.
    static var productsDirectory: URL {
        let bundleURL = Bundle(for: BundleLocator.self).bundleURL
        return bundleURL.lastPathComponent.hasSuffix("xctest") ? bundleURL.deletingLastPathComponent() : bundleURL
    }

    /// Starts the helper with `arguments`, its standard error going to the file `standardError`.
    init(arguments: [String], standardError: URL) throws {
        // Writing to a helper that died must fail as an error here, not end the test process
        // with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let output = Pipe()
        let inputPipe = Pipe()
        process.executableURL = Self.productsDirectory.appendingPathComponent("flag-event-queue-crash-helper")
        process.arguments = arguments
        process.standardOutput = output
        process.standardInput = inputPipe
        _ = FileManager.default.createFile(atPath: standardError.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: standardError)
        input = inputPipe.fileHandleForWriting
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        self.lines = lines
        try process.run()
        let reading = output.fileHandleForReading
        // A thread of its own: reading a pipe blocks, and the tests' tasks must not.
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let chunk = reading.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    continuation.yield(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending.removeSubrange(pending.startIndex...newline)
                }
            }
            continuation.finish()
        }
    }

    /// Lets a helper stopped at a point (`pause` mode) go on.
    func proceed() throws {
        try input.write(contentsOf: Data("go\n".utf8))
    }

    /// Sends SIGKILL.
    func kill() {
        #if canImport(Darwin)
        _ = Darwin.kill(process.processIdentifier, SIGKILL)
        #elseif canImport(Glibc)
        _ = Glibc.kill(process.processIdentifier, SIGKILL)
        #elseif canImport(Musl)
        _ = Musl.kill(process.processIdentifier, SIGKILL)
        #endif
    }

    /// Waits for the process to end (call it once ``lines`` ended); whether SIGKILL ended it,
    /// and its exit status otherwise.
    func waitForExit() -> (killed: Bool, status: Int32) {
        process.waitUntilExit()
        try? input.close()
        return (process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL, process.terminationStatus)
    }
}
#endif
