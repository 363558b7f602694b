// The `os` module's unified-logging API, as the project uses it.
// https://developer.apple.com/documentation/os/logger
import Foundation

// https://developer.apple.com/documentation/os/logger — iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1; Sendable.
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
public struct Logger: Sendable {
    // https://developer.apple.com/documentation/os/logger/init(subsystem:category:)
    public init(subsystem: String, category: String) {}
    // https://developer.apple.com/documentation/os/logger/fault(_:)
    public func fault(_ message: OSLogMessage) {}
    // https://developer.apple.com/documentation/os/logger/error(_:)
    public func error(_ message: OSLogMessage) {}
    // https://developer.apple.com/documentation/os/logger/debug(_:)
    public func debug(_ message: OSLogMessage) {}
    // https://developer.apple.com/documentation/os/logger/info(_:)
    public func info(_ message: OSLogMessage) {}
    // https://developer.apple.com/documentation/os/logger/notice(_:)
    public func notice(_ message: OSLogMessage) {}
}

// https://developer.apple.com/documentation/os/oslogmessage — a string literal with interpolations
// that take a privacy argument.
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {}
    public init(stringInterpolation: OSLogInterpolation) {}
}

// https://developer.apple.com/documentation/os/osloginterpolation
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
public struct OSLogInterpolation: StringInterpolationProtocol {
    public init(literalCapacity: Int, interpolationCount: Int) {}
    public mutating func appendLiteral(_ literal: String) {}
    // https://developer.apple.com/documentation/os/osloginterpolation/appendinterpolation(_:align:privacy:)-1ys1g
    public mutating func appendInterpolation(
        _ argumentString: @autoclosure @escaping () -> String, align: OSLogStringAlignment = .none,
        privacy: OSLogPrivacy = .auto
    ) {}
    public mutating func appendInterpolation<T: BinaryInteger>(
        _ number: @autoclosure @escaping () -> T, privacy: OSLogPrivacy = .auto
    ) {}
}

// https://developer.apple.com/documentation/os/oslogstringalignment
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
public struct OSLogStringAlignment: Sendable {
    public static let none = OSLogStringAlignment()
}

// https://developer.apple.com/documentation/os/oslogprivacy
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
public struct OSLogPrivacy: Sendable {
    public static let auto = OSLogPrivacy()
    public static let `public` = OSLogPrivacy()
    public static let `private` = OSLogPrivacy()
    public static let sensitive = OSLogPrivacy()
}
