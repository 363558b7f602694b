import NIOCore
import PostgresNIO

/// An array parameter whose elements may be `NULL` (postgres-nio binds arrays of non-optional
/// elements only), in PostgreSQL's binary array format: the event store binds each column of a
/// multi-row insert as one array and reads them back with `unnest`, so a statement binds a few
/// parameters however many rows it writes.
struct PostgresNullableArray<Element: PostgresArrayEncodable & PostgresNonThrowingEncodable>: PostgresNonThrowingEncodable {
    var elements: [Element?]

    init(_ elements: [Element?]) {
        self.elements = elements
    }

    static var psqlType: PostgresDataType { Element.psqlArrayType }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        // Dimensions (0 for an empty array), whether there are nulls, the element type.
        buffer.writeInteger(elements.isEmpty ? 0 : 1, as: Int32.self)
        buffer.writeInteger(elements.contains { $0 == nil } ? 1 : 0, as: Int32.self)
        buffer.writeInteger(Element.psqlType.rawValue)
        guard !elements.isEmpty else { return }
        // The one dimension: its length and lower bound.
        buffer.writeInteger(Int32(elements.count), as: Int32.self)
        buffer.writeInteger(1, as: Int32.self)
        for element in elements {
            guard let element else {
                buffer.writeInteger(-1, as: Int32.self)
                continue
            }
            // Each element: its length in bytes, then its bytes.
            let lengthIndex = buffer.writerIndex
            buffer.writeInteger(0, as: Int32.self)
            let start = buffer.writerIndex
            element.encode(into: &buffer, context: context)
            buffer.setInteger(Int32(buffer.writerIndex - start), at: lengthIndex, as: Int32.self)
        }
    }
}
