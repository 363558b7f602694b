// UIKit, as the project uses it. On watchOS the module exists with a few types (UIImage,
// UIColor, UIFont), so `canImport(UIKit)` is true there, but text-input types are not available.
import Foundation

// https://developer.apple.com/documentation/uikit/uikeyboardtype — iOS 2, tvOS 9, visionOS 1
// (Mac Catalyst); not on watchOS.
@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@available(watchOS, unavailable)
public enum UIKeyboardType: Int, Sendable {
    case `default`, asciiCapable, numbersAndPunctuation, URL, numberPad, phonePad, namePhonePad,
        emailAddress, decimalPad, twitter, webSearch, asciiCapableNumberPad
}
