#if os(iOS) && !targetEnvironment(macCatalyst) && canImport(UIKit)
import Foundation
import UIKit

extension SystemAppContextProvider {
    /// `phone` or `pad` from `UIDevice`'s interface idiom, which only the main thread may read;
    /// `nil` elsewhere.
    static func interfaceIdiomClass() -> AppContext.DeviceClass? {
        guard Thread.isMainThread else { return nil }
        return MainActor.assumeIsolated { deviceClass(of: UIDevice.current.userInterfaceIdiom) }
    }

    static func deviceClass(of idiom: UIUserInterfaceIdiom) -> AppContext.DeviceClass? {
        switch idiom {
        case .phone: .phone
        case .pad: .pad
        case .mac: .mac
        case .vision: .vision
        default: nil
        }
    }
}
#endif
