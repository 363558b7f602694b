// SwiftUI, as the project uses it: each declaration transcribed from its page on
// https://developer.apple.com/documentation/swiftui/ (the path after it is given beside each),
// with the page's isolation (`@MainActor`, `nonisolated`, `@Sendable`) and availability. A
// platform missing from a page's availability list is marked `unavailable`. Bodies are stubs.
@_exported import DeveloperToolsSupport
@_exported import Foundation
#if canImport(UIKit)
import UIKit
#endif

private func stub<T>() -> T { fatalError("Apple check stub") }

// MARK: View, ViewModifier, ViewBuilder

// view — `@MainActor @preconcurrency protocol View`
@MainActor @preconcurrency public protocol View {
    associatedtype Body: View
    @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

extension Never: View {
    public typealias Body = Never
    public var body: Never { return stub() }
}

// viewmodifier — `@MainActor @preconcurrency protocol ViewModifier`
@MainActor @preconcurrency public protocol ViewModifier {
    associatedtype Body: View
    typealias Content = _ViewModifier_Content<Self>
    @ViewBuilder @MainActor @preconcurrency func body(content: Self.Content) -> Self.Body
}

public struct _ViewModifier_Content<Modifier: ViewModifier>: View {
    public typealias Body = Never
    public var body: Never { return stub() }
}

// modifiedcontent
public struct ModifiedContent<Content, Modifier> {
    public var content: Content
    public var modifier: Modifier
}
extension ModifiedContent: View where Content: View, Modifier: ViewModifier {
    public typealias Body = Never
    public var body: Never { return stub() }
}

// view/modifier(_:)
extension View {
    nonisolated public func modifier<T>(_ modifier: T) -> ModifiedContent<Self, T> { stub() }
}

// viewbuilder — `@resultBuilder struct ViewBuilder`
@resultBuilder public struct ViewBuilder {
    public static func buildBlock() -> EmptyView { EmptyView() }
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
    public static func buildBlock<each Content: View>(_ content: repeat each Content) -> TupleView<(repeat each Content)> { stub() }
    public static func buildExpression<Content: View>(_ content: Content) -> Content { content }
    public static func buildIf<Content: View>(_ content: Content?) -> Content? { content }
    public static func buildEither<TrueContent: View, FalseContent: View>(first: TrueContent) -> _ConditionalContent<TrueContent, FalseContent> { stub() }
    public static func buildEither<TrueContent: View, FalseContent: View>(second: FalseContent) -> _ConditionalContent<TrueContent, FalseContent> { stub() }
    public static func buildLimitedAvailability<Content: View>(_ content: Content) -> AnyView { stub() }
}

// The `#Preview` macros (preview(_:body:), preview(_:traits:_:body:)): declared in SwiftUI,
// `@freestanding(declaration) macro Preview(_ name: String? = nil, @ContentBuilder body:
// @escaping @MainActor () -> any View)`; ContentBuilder is ViewBuilder here. preview(_:body:) —
// iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1; the traits form — iOS 17, macOS 14, tvOS 17,
// watchOS 10, visionOS 1.
@freestanding(declaration)
public macro Preview(_ name: String? = nil, @ViewBuilder body: @escaping @MainActor () -> any View) =
    #externalMacro(module: "PreviewMacros", type: "PreviewMacro")
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
@freestanding(declaration)
public macro Preview(
    _ name: String? = nil, traits: PreviewTrait<Preview.ViewTraits>, _ additionalTraits: PreviewTrait<Preview.ViewTraits>...,
    @ViewBuilder body: @escaping @MainActor () -> any View
) = #externalMacro(module: "PreviewMacros", type: "PreviewMacro")
// previewable() — `@attached(peer) macro Previewable()`, iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
@attached(peer) public macro Previewable() = #externalMacro(module: "PreviewMacros", type: "PreviewableMacro")

/// What the `#Preview` expansion calls: type-checks the body as Xcode's expansion does.
@MainActor public func __previewBody(@ViewBuilder _ body: @MainActor () -> any View) -> any View { body() }

public struct TupleView<T>: View {
    public typealias Body = Never
    public var body: Never { return stub() }
}
public struct _ConditionalContent<TrueContent, FalseContent>: View {
    public typealias Body = Never
    public var body: Never { return stub() }
}
extension Optional: View where Wrapped: View {
    public typealias Body = Never
    public var body: Never { return stub() }
}
// anyview
public struct AnyView: View {
    public init<V: View>(_ view: V) {}
    public typealias Body = Never
    public var body: Never { return stub() }
}
// emptyview
public struct EmptyView: View {
    nonisolated public init() {}
    public typealias Body = Never
    public var body: Never { return stub() }
}

// MARK: Data flow

// state — `@frozen @propertyWrapper struct State<Value>: DynamicProperty`
@propertyWrapper public struct State<Value>: DynamicProperty {
    public init(wrappedValue value: Value) {}
    public init(initialValue value: Value) {}
    public var wrappedValue: Value { get { stub() } nonmutating set {} }
    public var projectedValue: Binding<Value> { stub() }
}
extension State where Value: ExpressibleByNilLiteral {
    public init() {}
}
extension State: Sendable where Value: Sendable {}

// binding — `@frozen @propertyWrapper @dynamicMemberLookup struct Binding<Value>`
@propertyWrapper @dynamicMemberLookup public struct Binding<Value> {
    // binding/init(get:set:)-7ufcp
    @preconcurrency public init(
        get: @escaping @isolated(any) @Sendable () -> Value,
        set: @escaping @isolated(any) @Sendable (Value) -> Void
    ) {}
    public static func constant(_ value: Value) -> Binding<Value> { stub() }
    public var wrappedValue: Value { get { stub() } nonmutating set {} }
    public var projectedValue: Binding<Value> { self }
    public subscript<Subject>(dynamicMember keyPath: WritableKeyPath<Value, Subject>) -> Binding<Subject> { stub() }
}
extension Binding: Sendable where Value: Sendable {}

// dynamicproperty
public protocol DynamicProperty {}

// environmentvalues / environmentkey / environment
public struct EnvironmentValues {
    public subscript<K: EnvironmentKey>(key: K.Type) -> K.Value {
        get { stub() }
        set {}
    }
}
public protocol EnvironmentKey {
    associatedtype Value
    static var defaultValue: Self.Value { get }
}
@propertyWrapper public struct Environment<Value>: DynamicProperty {
    public init(_ keyPath: KeyPath<EnvironmentValues, Value>) {}
    public var wrappedValue: Value { stub() }
}
extension Environment: Sendable where Value: Sendable {}
extension View {
    // view/environment(_:_:)
    nonisolated public func environment<V>(_ keyPath: WritableKeyPath<EnvironmentValues, V>, _ value: V) -> some View { self }
}

// MARK: Text and images

// localizedstringkey
public struct LocalizedStringKey: Equatable, ExpressibleByStringInterpolation, Sendable {
    public init(_ value: String) {}
    public init(stringLiteral value: String) {}
    public init(stringInterpolation: StringInterpolation) {}
    public struct StringInterpolation: StringInterpolationProtocol {
        public init(literalCapacity: Int, interpolationCount: Int) {}
        public mutating func appendLiteral(_ literal: String) {}
        public mutating func appendInterpolation(_ string: String) {}
        public mutating func appendInterpolation<T>(_ value: T) where T: _FormatSpecifiable {}
        public mutating func appendInterpolation(_ text: Text) {}
    }
}
public protocol _FormatSpecifiable: Equatable {}
extension Int: _FormatSpecifiable {}
extension Double: _FormatSpecifiable {}

// text
public struct Text: View, Equatable, Sendable {
    nonisolated public init(_ key: LocalizedStringKey) {}
    nonisolated public init<S: StringProtocol>(_ content: S) {}
    nonisolated public init(verbatim content: String) {}
    // text/init(_:style:)
    nonisolated public init(_ date: Date, style: Text.DateStyle) {}
    // text/datestyle
    public struct DateStyle: Equatable, Sendable {
        public static let time = DateStyle(), date = DateStyle(), relative = DateStyle(), offset = DateStyle(), timer = DateStyle()
    }
    public typealias Body = Never
    public var body: Never { return stub() }
}

// image/init(systemname:)
public struct Image: View, Equatable, Sendable {
    nonisolated public init(systemName: String) {}
    public typealias Body = Never
    public var body: Never { return stub() }
}

// label — iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1
public struct Label<Title: View, Icon: View>: View {
    public typealias Body = Never
    public var body: Never { return stub() }
}
extension Label where Title == Text, Icon == Image {
    // label/init(_:systemimage:)-7hkgm, -3zrh3
    nonisolated public init(_ titleKey: LocalizedStringKey, systemImage name: String) {}
    nonisolated public init<S: StringProtocol>(_ title: S, systemImage name: String) {}
}

// font
public struct Font: Hashable, Sendable {
    public static let largeTitle = Font(), title = Font(), headline = Font(), subheadline = Font(), body = Font(),
        callout = Font(), footnote = Font(), caption = Font(), caption2 = Font()
}

// shapestyle, color, hierarchicalshapestyle
public protocol ShapeStyle: Sendable {}
public struct Color: ShapeStyle, View, Hashable {
    nonisolated public static let red = Color(), orange = Color(), yellow = Color(), green = Color(), blue = Color(),
        gray = Color(), primary = Color(), secondary = Color()
    public typealias Body = Never
    public var body: Never { return stub() }
}
extension ShapeStyle where Self == Color {
    public static var red: Color { .red }
    public static var orange: Color { .orange }
    public static var green: Color { .green }
    public static var blue: Color { .blue }
    public static var gray: Color { .gray }
}
// hierarchicalshapestyle — iOS 15, macOS 12, tvOS 15, watchOS 8
public struct HierarchicalShapeStyle: ShapeStyle {
    public static let primary = HierarchicalShapeStyle(), secondary = HierarchicalShapeStyle(), tertiary = HierarchicalShapeStyle()
}
extension ShapeStyle where Self == HierarchicalShapeStyle {
    public static var primary: HierarchicalShapeStyle { .primary }
    public static var secondary: HierarchicalShapeStyle { .secondary }
    public static var tertiary: HierarchicalShapeStyle { .tertiary }
}

// textalignment
public enum TextAlignment: Hashable, CaseIterable, Sendable { case leading, center, trailing }
public struct HorizontalAlignment: Equatable, Sendable {
    public static let leading = HorizontalAlignment(), center = HorizontalAlignment(), trailing = HorizontalAlignment()
}
public struct VerticalAlignment: Equatable, Sendable {
    public static let top = VerticalAlignment(), center = VerticalAlignment(), bottom = VerticalAlignment()
}
public enum HorizontalEdge: Int8, CaseIterable, Sendable { case leading, trailing }

// MARK: Layout and containers

// vstack/init(alignment:spacing:content:)
public struct VStack<Content: View>: View {
    nonisolated public init(alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {}
    public typealias Body = Never
    public var body: Never { return stub() }
}
// hstack/init(alignment:spacing:content:)
public struct HStack<Content: View>: View {
    nonisolated public init(alignment: VerticalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {}
    public typealias Body = Never
    public var body: Never { return stub() }
}
// spacer
public struct Spacer: View {
    nonisolated public init(minLength: CGFloat? = nil) {}
    public typealias Body = Never
    public var body: Never { return stub() }
}
// list/init(content:)
public struct List<SelectionValue: Hashable, Content: View>: View {
    public typealias Body = Never
    public var body: Never { return stub() }
}
extension List where SelectionValue == Never {
    nonisolated public init(@ViewBuilder content: () -> Content) {}
}
// section/init(_:content:)-90be4 (LocalizedStringKey and StringProtocol titles) — iOS 15, macOS 12, tvOS 15, watchOS 8
public struct Section<Parent, Content, Footer> {}
extension Section: View where Parent: View, Content: View, Footer: View {
    public typealias Body = Never
    public var body: Never { return stub() }
}
extension Section where Parent == Text, Content: View, Footer == EmptyView {
    nonisolated public init(_ titleKey: LocalizedStringKey, @ViewBuilder content: () -> Content) {}
    nonisolated public init<S: StringProtocol>(_ title: S, @ViewBuilder content: () -> Content) {}
}
// foreach — init(_:id:content:) and init(_:content:) for Identifiable data
public struct ForEach<Data: RandomAccessCollection, ID: Hashable, Content> {}
extension ForEach: View where Content: View {
    public typealias Body = Never
    public var body: Never { return stub() }
}
extension ForEach where Content: View {
    nonisolated public init(_ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder content: @escaping (Data.Element) -> Content) {}
}
extension ForEach where ID == Data.Element.ID, Content: View, Data.Element: Identifiable {
    nonisolated public init(_ data: Data, @ViewBuilder content: @escaping (Data.Element) -> Content) {}
}
// labeledcontent — iOS 16, macOS 13, tvOS 16, watchOS 9, visionOS 1
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
public struct LabeledContent<Label, Content> {}
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
extension LabeledContent: View where Label: View, Content: View {
    public typealias Body = Never
    public var body: Never { return stub() }
}
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
extension LabeledContent where Label == Text, Content == Text {
    // labeledcontent/init(_:value:)-…: LocalizedStringKey title or StringProtocol title, StringProtocol value
    nonisolated public init<S: StringProtocol>(_ titleKey: LocalizedStringKey, value: S) {}
    nonisolated public init<S1: StringProtocol, S2: StringProtocol>(_ title: S1, value: S2) {}
}
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
extension LabeledContent where Label == Text, Content: View {
    // labeledcontent/init(_:content:)
    nonisolated public init(_ titleKey: LocalizedStringKey, @ViewBuilder content: () -> Content) {}
}

// MARK: Controls

// buttonrole — iOS 15, macOS 12, tvOS 15, watchOS 8
public struct ButtonRole: Equatable, Sendable {
    public static let destructive = ButtonRole(), cancel = ButtonRole()
}
// button — init(_:action:), init(_:role:action:), init(_:systemImage:action:); the action is
// `@escaping @MainActor () -> Void`
public struct Button<Label: View>: View {
    nonisolated public init(action: @escaping @MainActor () -> Void, @ViewBuilder label: () -> Label) {}
    public typealias Body = Never
    public var body: Never { return stub() }
}
extension Button where Label == Text {
    nonisolated public init(_ titleKey: LocalizedStringKey, action: @escaping @MainActor () -> Void) {}
    nonisolated public init<S: StringProtocol>(_ title: S, action: @escaping @MainActor () -> Void) {}
    nonisolated public init(_ titleKey: LocalizedStringKey, role: ButtonRole?, action: @escaping @MainActor () -> Void) {}
    nonisolated public init<S: StringProtocol>(_ title: S, role: ButtonRole?, action: @escaping @MainActor () -> Void) {}
}
extension Button where Label == SwiftUI.Label<Text, Image> {
    nonisolated public init(_ titleKey: LocalizedStringKey, systemImage: String, action: @escaping @MainActor () -> Void) {}
    nonisolated public init<S: StringProtocol>(_ title: S, systemImage: String, action: @escaping @MainActor () -> Void) {}
}
// toggle/init(_:ison:)
public struct Toggle<Label: View>: View {
    public typealias Body = Never
    public var body: Never { return stub() }
}
extension Toggle where Label == Text {
    nonisolated public init(_ titleKey: LocalizedStringKey, isOn: Binding<Bool>) {}
    nonisolated public init<S: StringProtocol>(_ title: S, isOn: Binding<Bool>) {}
}
// picker/init(_:selection:content:)
public struct Picker<Label: View, SelectionValue: Hashable, Content: View>: View {
    public typealias Body = Never
    public var body: Never { return stub() }
}
extension Picker where Label == Text {
    nonisolated public init(_ titleKey: LocalizedStringKey, selection: Binding<SelectionValue>, @ViewBuilder content: () -> Content) {}
    nonisolated public init<S: StringProtocol>(_ title: S, selection: Binding<SelectionValue>, @ViewBuilder content: () -> Content) {}
}
// textfield/init(_:text:)
public struct TextField<Label: View>: View {
    public typealias Body = Never
    public var body: Never { return stub() }
}
extension TextField where Label == Text {
    nonisolated public init(_ titleKey: LocalizedStringKey, text: Binding<String>) {}
    nonisolated public init<S: StringProtocol>(_ title: S, text: Binding<String>) {}
}
// textinputautocapitalization — iOS 15, tvOS 15, watchOS 8, visionOS 1; not macOS
@available(iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
@available(macOS, unavailable)
public struct TextInputAutocapitalization: Sendable {
    public static let never = TextInputAutocapitalization(), words = TextInputAutocapitalization(),
        sentences = TextInputAutocapitalization(), characters = TextInputAutocapitalization()
}
// submittriggers
public struct SubmitTriggers: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let text = SubmitTriggers(rawValue: 1), search = SubmitTriggers(rawValue: 2)
}
// searchfieldplacement
public struct SearchFieldPlacement: Sendable {
    public static let automatic = SearchFieldPlacement()
}

// MARK: Navigation and toolbars

// navigationbaritem/titledisplaymode — iOS 14, watchOS 8, visionOS 1; not macOS, not tvOS
@available(iOS 14.0, watchOS 8.0, visionOS 1.0, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
public struct NavigationBarItem: Sendable {
    public enum TitleDisplayMode: Sendable { case automatic, inline, large }
}
// navigationstack — iOS 16, macOS 13, tvOS 16, watchOS 9, visionOS 1
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
public struct NavigationStack<Data, Root: View>: View {
    public typealias Body = Never
    public var body: Never { return stub() }
}
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
extension NavigationStack where Data == Never {
    nonisolated public init(@ViewBuilder root: () -> Root) {}
}
// toolbarcontent / toolbaritem (`nonisolated struct ToolbarItem<ID, Content> where Content: View`) /
// toolbaritem/init(placement:content:) / toolbaritemplacement / toolbarcontentbuilder
@MainActor @preconcurrency public protocol ToolbarContent {}
nonisolated public struct ToolbarItem<ID, Content: View>: ToolbarContent {}
extension ToolbarItem where ID == () {
    nonisolated public init(placement: ToolbarItemPlacement = .automatic, @ViewBuilder content: () -> Content) {}
}
public struct ToolbarItemPlacement: Sendable {
    public static let automatic = ToolbarItemPlacement()
    public static let primaryAction = ToolbarItemPlacement()
    public static let confirmationAction = ToolbarItemPlacement()
    public static let cancellationAction = ToolbarItemPlacement()
    public static let destructiveAction = ToolbarItemPlacement()
    // toolbaritemplacement/keyboard — iOS 15, macOS 12 (Mac Catalyst); not tvOS, watchOS, visionOS
    @available(iOS 15.0, macOS 12.0, *)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    @available(visionOS, unavailable)
    public static let keyboard = ToolbarItemPlacement()
}
@resultBuilder public struct ToolbarContentBuilder {
    public static func buildBlock<Content: ToolbarContent>(_ content: Content) -> Content { content }
}

// MARK: View modifiers

extension View {
    // view/font(_:)
    nonisolated public func font(_ font: Font?) -> some View { self }
    // view/foregroundstyle(_:) — iOS 15, macOS 12, tvOS 15, watchOS 8
    nonisolated public func foregroundStyle<S: ShapeStyle>(_ style: S) -> some View { self }
    // view/padding(_:)-6pgqq
    nonisolated public func padding(_ length: CGFloat) -> some View { self }
    // view/border(_:width:)
    nonisolated public func border<S: ShapeStyle>(_ content: S, width: CGFloat = 1) -> some View { self }
    // view/onappear(perform:)
    nonisolated public func onAppear(perform action: (() -> Void)? = nil) -> some View { self }
    // view/ondisappear(perform:)
    nonisolated public func onDisappear(perform action: (() -> Void)? = nil) -> some View { self }
    // view/onchange(of:initial:_:)-4psgg — iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    nonisolated public func onChange<V: Equatable>(
        of value: V, initial: Bool = false, _ action: @escaping (_ oldValue: V, _ newValue: V) -> Void
    ) -> some View { self }
    // view/onchange(of:initial:_:)-8wgw9
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    nonisolated public func onChange<V: Equatable>(of value: V, initial: Bool = false, _ action: @escaping () -> Void) -> some View { self }
    // view/onchange(of:perform:) — deprecated in iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1
    @available(iOS, introduced: 14.0, deprecated: 17.0)
    @available(macOS, introduced: 11.0, deprecated: 14.0)
    @available(tvOS, introduced: 14.0, deprecated: 17.0)
    @available(watchOS, introduced: 7.0, deprecated: 10.0)
    @available(visionOS, introduced: 1.0, deprecated: 1.0)
    nonisolated public func onChange<V: Equatable>(of value: V, perform action: @escaping (_ newValue: V) -> Void) -> some View { self }
    // view/contextmenu(menuitems:) — iOS 13, macOS 10.15, tvOS 14, visionOS 1; watchOS 6–7 deprecated
    @available(iOS 13.0, macOS 10.15, tvOS 14.0, visionOS 1.0, *)
    @available(watchOS, introduced: 6.0, deprecated: 7.0)
    nonisolated public func contextMenu<MenuItems: View>(@ViewBuilder menuItems: () -> MenuItems) -> some View { self }
    // view/swipeactions(edge:allowsfullswipe:content:) — iOS 15, macOS 12, watchOS 8, visionOS 1; not tvOS
    @available(iOS 15.0, macOS 12.0, watchOS 8.0, visionOS 1.0, *)
    @available(tvOS, unavailable)
    nonisolated public func swipeActions<T: View>(
        edge: HorizontalEdge = .trailing, allowsFullSwipe: Bool = true, @ViewBuilder content: () -> T
    ) -> some View { self }
    // view/labelshidden()
    nonisolated public func labelsHidden() -> some View { self }
    // view/disabled(_:)
    nonisolated public func disabled(_ disabled: Bool) -> some View { self }
    // view/multilinetextalignment(_:)-9f7u8
    nonisolated public func multilineTextAlignment(_ alignment: TextAlignment) -> some View { self }
    // view/monospaced(_:) — iOS 16.4, macOS 13.3, tvOS 16.4, watchOS 9.4, visionOS 1
    @available(iOS 16.4, macOS 13.3, tvOS 16.4, watchOS 9.4, visionOS 1.0, *)
    nonisolated public func monospaced(_ isActive: Bool = true) -> some View { self }
    // view/onsubmit(of:_:) — iOS 15, macOS 12, tvOS 15, watchOS 8
    nonisolated public func onSubmit(of triggers: SubmitTriggers = .text, _ action: @escaping () -> Void) -> some View { self }
    // view/textinputautocapitalization(_:) — iOS 15, tvOS 15, watchOS 8, visionOS 1; not macOS
    @available(iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    @available(macOS, unavailable)
    nonisolated public func textInputAutocapitalization(_ autocapitalization: TextInputAutocapitalization?) -> some View { self }
    // view/autocorrectiondisabled(_:) — iOS 13, macOS 10.15, tvOS 13, watchOS 8, visionOS 1
    @available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 8.0, visionOS 1.0, *)
    nonisolated public func autocorrectionDisabled(_ disable: Bool = true) -> some View { self }
    // view/accessibilitylabel(_:)-1d7jv (LocalizedStringKey), -5f0zj (StringProtocol), (Text)
    nonisolated public func accessibilityLabel(_ labelKey: LocalizedStringKey) -> some View { self }
    nonisolated public func accessibilityLabel<S: StringProtocol>(_ label: S) -> some View { self }
    nonisolated public func accessibilityLabel(_ label: Text) -> some View { self }
    // view/tag(_:includeoptional:)
    nonisolated public func tag<V: Hashable>(_ tag: V, includeOptional: Bool = true) -> some View { self }
    // view/searchable(text:placement:prompt:)-18a8f — iOS 15, macOS 12, tvOS 15, watchOS 8
    nonisolated public func searchable(text: Binding<String>, placement: SearchFieldPlacement = .automatic, prompt: Text? = nil) -> some View { self }
    // view/navigationtitle(_:)-avgj (LocalizedStringKey), -5di1u (StringProtocol)
    nonisolated public func navigationTitle(_ titleKey: LocalizedStringKey) -> some View { self }
    nonisolated public func navigationTitle<S: StringProtocol>(_ title: S) -> some View { self }
    // view/navigationbartitledisplaymode(_:) — iOS 14, watchOS 8, visionOS 1; not macOS, not tvOS
    @available(iOS 14.0, watchOS 8.0, visionOS 1.0, *)
    @available(macOS, unavailable)
    @available(tvOS, unavailable)
    nonisolated public func navigationBarTitleDisplayMode(_ displayMode: NavigationBarItem.TitleDisplayMode) -> some View { self }
    // view/toolbar(content:)-5w0tj (views), -7vdkx (ToolbarContent)
    nonisolated public func toolbar<Content: View>(@ViewBuilder content: () -> Content) -> some View { self }
    nonisolated public func toolbar<Content: ToolbarContent>(@ToolbarContentBuilder content: () -> Content) -> some View { self }
    // view/task(priority:_:) — the action is `@escaping @isolated(any) @Sendable () async -> Void`
    nonisolated public func task(priority: TaskPriority = .userInitiated, _ action: @escaping @isolated(any) @Sendable () async -> Void) -> some View { self }
}

#if canImport(UIKit)
extension View {
    // view/keyboardtype(_:) — iOS 13, tvOS 13, visionOS 1 (Mac Catalyst); not macOS, not watchOS
    @available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
    @available(macOS, unavailable)
    @available(watchOS, unavailable)
    nonisolated public func keyboardType(_ type: UIKeyboardType) -> some View { self }
}
#endif

// glass — iOS 26, macOS 26, tvOS 26, watchOS 26; not visionOS
@available(iOS 26.0, macOS 26.0, tvOS 26.0, watchOS 26.0, *)
@available(visionOS, unavailable)
public struct Glass: Equatable, Sendable {
    public static let regular = Glass(), clear = Glass()
}
extension View {
    // view/glasseffect(_:in:) — iOS 26, macOS 26, tvOS 26, watchOS 26; not visionOS. The `in shape:`
    // parameter is left out until the project uses shapes.
    @available(iOS 26.0, macOS 26.0, tvOS 26.0, watchOS 26.0, *)
    @available(visionOS, unavailable)
    nonisolated public func glassEffect(_ glass: Glass = .regular) -> some View { self }
}

// MARK: The debug menu's presenter, fields, sheets and lifecycle

extension View {
    // view/transformenvironment(_:transform:) — iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1
    nonisolated public func transformEnvironment<V>(
        _ keyPath: WritableKeyPath<EnvironmentValues, V>, transform: @escaping (inout V) -> Void
    ) -> some View { self }
    // view/sheet(ispresented:ondismiss:content:) — iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1
    nonisolated public func sheet<Content: View>(
        isPresented: Binding<Bool>, onDismiss: (() -> Void)? = nil, @ViewBuilder content: @escaping () -> Content
    ) -> some View { self }
    // view/confirmationdialog(_:ispresented:titlevisibility:actions:message:)-… (LocalizedStringKey
    // and StringProtocol titles) — iOS 15, macOS 12, tvOS 15, watchOS 8, visionOS 1
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    nonisolated public func confirmationDialog<A: View, M: View>(
        _ titleKey: LocalizedStringKey, isPresented: Binding<Bool>, titleVisibility: Visibility = .automatic,
        @ViewBuilder actions: () -> A, @ViewBuilder message: () -> M
    ) -> some View { self }
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    nonisolated public func confirmationDialog<S: StringProtocol, A: View, M: View>(
        _ title: S, isPresented: Binding<Bool>, titleVisibility: Visibility = .automatic,
        @ViewBuilder actions: () -> A, @ViewBuilder message: () -> M
    ) -> some View { self }
    // view/focused(_:) — iOS 15, macOS 12, tvOS 15, watchOS 8, visionOS 1
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    nonisolated public func focused(_ condition: FocusState<Bool>.Binding) -> some View { self }
    // view/linelimit(_:)-513mb (ClosedRange<Int>) — iOS 16, macOS 13, tvOS 16, watchOS 9, visionOS 1
    @available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
    nonisolated public func lineLimit(_ limit: ClosedRange<Int>) -> some View { self }
    // view/simultaneousgesture(_:including:) — iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1
    nonisolated public func simultaneousGesture<T: Gesture>(_ gesture: T, including mask: GestureMask = .all) -> some View { self }
    // view/background(alignment:content:) — iOS 15, macOS 12, tvOS 15, watchOS 8, visionOS 1
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    nonisolated public func background<V: View>(alignment: Alignment = .center, @ViewBuilder content: () -> V) -> some View { self }
}

// alignment
public struct Alignment: Equatable, Sendable {
    public static let center = Alignment(), leading = Alignment(), trailing = Alignment(), top = Alignment(), bottom = Alignment()
}

// visibility — iOS 15, macOS 12, tvOS 15, watchOS 8, visionOS 1
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public enum Visibility: Hashable, CaseIterable, Sendable { case automatic, visible, hidden }

// scenephase — `enum ScenePhase`, Comparable, Hashable, Sendable — iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
public enum ScenePhase: Comparable, Hashable, Sendable { case background, inactive, active }

// dismissaction — `@MainActor @preconcurrency struct DismissAction`, callAsFunction() — iOS 15,
// macOS 12, tvOS 15, watchOS 8, visionOS 1
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
@MainActor @preconcurrency public struct DismissAction {
    public func callAsFunction() {}
}

extension EnvironmentValues {
    // environmentvalues/scenephase — iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1
    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
    public var scenePhase: ScenePhase { get { stub() } set {} }
    // environmentvalues/dismiss — iOS 15, macOS 12, tvOS 15, watchOS 8, visionOS 1
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    public var dismiss: DismissAction { stub() }
}

// focusstate — `@frozen @propertyWrapper struct FocusState<Value> where Value: Hashable` — iOS 15,
// macOS 12, tvOS 15, watchOS 8, visionOS 1
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
@propertyWrapper public struct FocusState<Value: Hashable>: DynamicProperty {
    public init() where Value == Bool {}
    @propertyWrapper public struct Binding {
        public init(wrappedValue: Value) {}
        public var wrappedValue: Value { get { stub() } nonmutating set {} }
        public var projectedValue: FocusState<Value>.Binding { self }
    }
    public var wrappedValue: Value { get { stub() } nonmutating set {} }
    public var projectedValue: FocusState<Value>.Binding { stub() }
}

// form — init(content:) — iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1
public struct Form<Content: View>: View {
    nonisolated public init(@ViewBuilder content: () -> Content) {}
    public typealias Body = Never
    public var body: Never { return stub() }
}

// section/init(content:header:footer:), section/init(content:footer:) — iOS 15, macOS 12, tvOS 15,
// watchOS 8, visionOS 1
extension Section where Parent: View, Content: View, Footer: View {
    nonisolated public init(@ViewBuilder content: () -> Content, @ViewBuilder header: () -> Parent, @ViewBuilder footer: () -> Footer) {}
}
extension Section where Parent == EmptyView, Content: View, Footer: View {
    nonisolated public init(@ViewBuilder content: () -> Content, @ViewBuilder footer: () -> Footer) {}
}

// axis — iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1
public enum Axis: Int8, CaseIterable, Hashable, Sendable { case horizontal, vertical }

extension TextField where Label == Text {
    // textfield/init(_:text:axis:)-… (LocalizedStringKey and StringProtocol titles) — iOS 16,
    // macOS 13, tvOS 16, watchOS 9, visionOS 1
    @available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
    nonisolated public init(_ titleKey: LocalizedStringKey, text: Binding<String>, axis: Axis) {}
    @available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
    nonisolated public init<S: StringProtocol>(_ title: S, text: Binding<String>, axis: Axis) {}
}

extension Button where Label == SwiftUI.Label<Text, Image> {
    // button/init(_:systemimage:role:action:)-… — iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    nonisolated public init(
        _ titleKey: LocalizedStringKey, systemImage: String, role: ButtonRole?, action: @escaping @MainActor () -> Void
    ) {}
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    nonisolated public init<S: StringProtocol>(
        _ title: S, systemImage: String, role: ButtonRole?, action: @escaping @MainActor () -> Void
    ) {}
}

// sharelink — `struct ShareLink<Data, PreviewImage, PreviewIcon, Label> where Data: RandomAccessCollection,
// PreviewImage: Transferable, PreviewIcon: Transferable, Label: View, Data.Element: Transferable`;
// init(item:subject:message:label:) for a String item — iOS 16, macOS 13, watchOS 9, visionOS 1; not tvOS.
// Transferable is left out: the project shares text only.
@available(iOS 16.0, macOS 13.0, watchOS 9.0, visionOS 1.0, *)
@available(tvOS, unavailable)
public struct ShareLink<Data: RandomAccessCollection, Label: View>: View {
    public typealias Body = Never
    public var body: Never { return stub() }
}
@available(iOS 16.0, macOS 13.0, watchOS 9.0, visionOS 1.0, *)
@available(tvOS, unavailable)
extension ShareLink where Data == CollectionOfOne<String> {
    nonisolated public init(item: String, subject: Text? = nil, message: Text? = nil, @ViewBuilder label: () -> Label) {}
}

// toolbaritemgroup/init(placement:content:) — iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1
nonisolated public struct ToolbarItemGroup<Content: View>: ToolbarContent {
    nonisolated public init(placement: ToolbarItemPlacement = .automatic, @ViewBuilder content: () -> Content) {}
}
// toolbarcontentbuilder/buildblock(_:_:) and buildif(_:) — several items, and items under `if`
// (Optional: ToolbarContent where Wrapped: ToolbarContent)
nonisolated public struct TupleToolbarContent<T>: ToolbarContent {}
extension Optional: ToolbarContent where Wrapped: ToolbarContent {}
extension ToolbarContentBuilder {
    public static func buildBlock<each Content: ToolbarContent>(_ content: repeat each Content) -> TupleToolbarContent<(repeat each Content)> { stub() }
    public static func buildIf<Content: ToolbarContent>(_ content: Content?) -> Content? { content }
}

// gesture — `@MainActor @preconcurrency protocol Gesture<Value>` (TapGesture and LongPressGesture are
// `nonisolated struct`s); gesture/onended(_:);
// gesturemask — iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1
@MainActor @preconcurrency public protocol Gesture<Value> {
    associatedtype Value
}
public struct _EndedGesture<Content: Gesture>: Gesture {
    public typealias Value = Content.Value
}
extension Gesture {
    nonisolated public func onEnded(_ action: @escaping (Self.Value) -> Void) -> _EndedGesture<Self> { stub() }
}
public struct GestureMask: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let none = GestureMask([]), gesture = GestureMask(rawValue: 1), subviews = GestureMask(rawValue: 2),
        all = GestureMask(rawValue: 3)
}
// longpressgesture/init(minimumduration:maximumdistance:) — iOS 13, macOS 10.15, tvOS 14, watchOS 6,
// visionOS 1 (on tvOS `init(minimumDuration:)`)
@available(iOS 13.0, macOS 10.15, tvOS 14.0, watchOS 6.0, visionOS 1.0, *)
nonisolated public struct LongPressGesture: Gesture {
    public typealias Value = Bool
    nonisolated public init(minimumDuration: Double = 0.5) {}
}
// tapgesture/init(count:) — iOS 13, macOS 10.15, tvOS 16, watchOS 6, visionOS 1
@available(iOS 13.0, macOS 10.15, tvOS 16.0, watchOS 6.0, visionOS 1.0, *)
nonisolated public struct TapGesture: Gesture {
    public typealias Value = Void
    nonisolated public init(count: Int = 1) {}
}

#if canImport(UIKit)
// uiviewcontrollerrepresentable — `@MainActor @preconcurrency protocol UIViewControllerRepresentable:
// View where Self.Body == Never`; makeUIViewController(context:), updateUIViewController(_:context:);
// Context = UIViewControllerRepresentableContext<Self> — iOS 13, tvOS 13, visionOS 1 (Mac Catalyst);
// not macOS, not watchOS
@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor @preconcurrency public protocol UIViewControllerRepresentable: View where Self.Body == Never {
    associatedtype UIViewControllerType: UIViewController
    typealias Context = UIViewControllerRepresentableContext<Self>
    @MainActor func makeUIViewController(context: Self.Context) -> Self.UIViewControllerType
    @MainActor func updateUIViewController(_ uiViewController: Self.UIViewControllerType, context: Self.Context)
}
@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
extension UIViewControllerRepresentable {
    public var body: Never { stub() }
}
@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor @preconcurrency public struct UIViewControllerRepresentableContext<Representable: UIViewControllerRepresentable> {}
#endif

// MARK: Apps and scenes (the sample app, Examples/SampleApp)

// scenebuilder — `@resultBuilder struct SceneBuilder`; buildBlock(_:) for one scene.
@resultBuilder public struct SceneBuilder {
    public static func buildBlock<Content: Scene>(_ content: Content) -> Content { content }
}
// scene — `@MainActor @preconcurrency protocol Scene`; `associatedtype Body: Scene`,
// `@SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }` — iOS 14, macOS 11, tvOS
// 14, watchOS 7, visionOS 1
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
@MainActor @preconcurrency public protocol Scene {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
}
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
extension Never: Scene {}
// app — `@MainActor @preconcurrency protocol App`; `associatedtype Body: Scene`, `init()`,
// `@SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }`; app/main() —
// `@MainActor @preconcurrency static func main()` — iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
@MainActor @preconcurrency public protocol App {
    associatedtype Body: Scene
    @MainActor @preconcurrency init()
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
}
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
extension App {
    @MainActor @preconcurrency public static func main() {}
}
// windowgroup — `@MainActor @preconcurrency struct WindowGroup<Content> where Content : View`;
// windowgroup/init(content:) — `nonisolated init(@ViewBuilder content: () -> Content)` — iOS 14,
// macOS 11, tvOS 14, watchOS 7, visionOS 1
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
@MainActor @preconcurrency public struct WindowGroup<Content: View>: Scene {
    nonisolated public init(@ViewBuilder content: () -> Content) {}
    public typealias Body = Never
    public var body: Never { return stub() }
}
