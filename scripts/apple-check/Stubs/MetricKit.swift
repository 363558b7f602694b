// MetricKit, as the project uses it (FeatureFlagsEvents' SessionHealthMetricKitSubscriber): each
// declaration transcribed from its page on https://developer.apple.com/documentation/metrickit/,
// with the page's availability. MetricKit exists on iOS 13, macOS 12 (the subscriber; 10.15 for
// some members) and visionOS 1; diagnostics from iOS 14 and macOS 12; there is no MetricKit on
// tvOS or watchOS (stubs.txt lists neither, so `canImport(MetricKit)` is false there). The
// subscriber's requirements are `optional` Objective-C ones; Linux has no `@objc`, so the stub
// makes the diagnostic one required (a misspelt witness fails here instead of never being
// called) and gives the metric one a default. Bodies are stubs.
@_exported import Foundation

private func stub<T>() -> T { fatalError("Apple check stub") }

// mxmetricmanagersubscriber — `protocol MXMetricManagerSubscriber : NSObjectProtocol`;
// iOS 13, macOS 12, visionOS 1.
@available(iOS 13.0, macOS 12.0, visionOS 1.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
public protocol MXMetricManagerSubscriber: NSObjectProtocol {
    // mxmetricmanagersubscriber/didreceive(_:)-3zq5g — `optional func didReceive(_ payloads:
    // [MXMetricPayload])`; iOS 13, macOS 10.15, visionOS 1.
    func didReceive(_ payloads: [MXMetricPayload])
    // mxmetricmanagersubscriber/didreceive(_:)-9yd4u — `optional func didReceive(_ payloads:
    // [MXDiagnosticPayload])`; iOS 14, macOS 12, visionOS 1.
    @available(iOS 14.0, macOS 12.0, visionOS 1.0, *)
    func didReceive(_ payloads: [MXDiagnosticPayload])
}

@available(iOS 13.0, macOS 12.0, visionOS 1.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
extension MXMetricManagerSubscriber {
    public func didReceive(_ payloads: [MXMetricPayload]) {}
}

// mxmetricmanager — `class MXMetricManager`; iOS 13, macOS 10.15, visionOS 1.
@available(iOS 13.0, macOS 10.15, visionOS 1.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
open class MXMetricManager: NSObject {
    // mxmetricmanager/shared — `class var shared: MXMetricManager { get }`
    open class var shared: MXMetricManager { stub() }
    // mxmetricmanager/add(_:) — `func add(_ subscriber: any MXMetricManagerSubscriber)`
    open func add(_ subscriber: any MXMetricManagerSubscriber) {}
    // mxmetricmanager/remove(_:) — `func remove(_ subscriber: any MXMetricManagerSubscriber)`
    open func remove(_ subscriber: any MXMetricManagerSubscriber) {}
}

// mxmetricpayload — `class MXMetricPayload`; iOS 13, macOS 10.15, visionOS 1.
@available(iOS 13.0, macOS 10.15, visionOS 1.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
open class MXMetricPayload: NSObject {}

// mxdiagnosticpayload — `class MXDiagnosticPayload`; iOS 14, macOS 12, visionOS 1.
@available(iOS 14.0, macOS 12.0, visionOS 1.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
open class MXDiagnosticPayload: NSObject {
    // mxdiagnosticpayload/crashdiagnostics — `var crashDiagnostics: [MXCrashDiagnostic]? { get }`
    open var crashDiagnostics: [MXCrashDiagnostic]? { stub() }
    // mxdiagnosticpayload/timestampbegin — `var timeStampBegin: Date { get }`
    open var timeStampBegin: Date { stub() }
    // mxdiagnosticpayload/timestampend — `var timeStampEnd: Date { get }`
    open var timeStampEnd: Date { stub() }
}

// mxdiagnostic — `class MXDiagnostic`; iOS 14, macOS 12, visionOS 1.
@available(iOS 14.0, macOS 12.0, visionOS 1.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
open class MXDiagnostic: NSObject {}

// mxcrashdiagnostic — `class MXCrashDiagnostic`; iOS 14, macOS 12, visionOS 1.
@available(iOS 14.0, macOS 12.0, visionOS 1.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
open class MXCrashDiagnostic: MXDiagnostic {
    // mxcrashdiagnostic/signal — `var signal: NSNumber? { get }`
    open var signal: NSNumber? { stub() }
    // mxcrashdiagnostic/exceptiontype — `var exceptionType: NSNumber? { get }`
    open var exceptionType: NSNumber? { stub() }
}
