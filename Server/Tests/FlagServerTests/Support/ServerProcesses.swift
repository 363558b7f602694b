import Foundation

/// Runs `scripts/tools/<name>` of the server package with python3: its exit status and its output.
func runPythonScript(_ name: String, _ arguments: [String]) throws -> (Int32, String) {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/tools/\(name)").path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script] + arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, text)
}

/// Starts the built `flag-server` with `arguments` and reads its output until it listens.
///
/// - Returns: The process, its port, the first admin token if this start printed one, and the
///   pipe its output goes to (still open: drain it or let the caller read more).
func launchFlagServer(
    _ arguments: [String], executable: URL = CrashRecoveryTests.executable
) async throws -> (process: Process, port: Int, firstToken: String?, output: Pipe) {
    let (process, output) = try startFlagServerProcess(arguments, executable: executable)
    // Read the output until the server says where it listens (and, on first start, the token).
    let (port, firstToken) = try listeningPortAndToken(in: try await outputUntilListening(output))
    return (process, port, firstToken, output)
}

/// The port a `flag-server serve` process said it listens on in `text`, and the first admin token
/// if it printed one.
func listeningPortAndToken(in text: String) throws -> (port: Int, firstToken: String?) {
    guard let portText = text.components(separatedBy: "listening on http://127.0.0.1:").last?.prefix(while: \.isNumber),
        let port = Int(portText)
    else { throw TestFailure("no port in the output:\n\(text)") }
    return (port, text.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("ffs_") }.map(String.init))
}

/// What a `flag-server serve` process wrote to `output` up to the line saying where it listens.
func outputUntilListening(_ output: Pipe) async throws -> String {
    try await Task.detached {
        var text = ""
        while !text.contains("listening on http://") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw TestFailure("flag-server exited early:\n\(text)") }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }.value
}

/// Starts the built `flag-server` (or `executable`, such as a wrapper that runs it) with
/// `arguments`, its standard output and error in one pipe.
func startFlagServerProcess(
    _ arguments: [String], executable: URL = CrashRecoveryTests.executable
) throws -> (process: Process, output: Pipe) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    return (process, output)
}
