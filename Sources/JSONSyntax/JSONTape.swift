/// JSON values parsed into flat arrays of nodes instead of a tree: no array or dictionary is
/// built per JSON array or object, and one tape holds many values (``JSONParser/parseTape(into:)``
/// appends each one).
///
/// A node's subtree is the nodes from it up to its ``Node/end``; its children are the nodes
/// that follow it, each child's successor at the child's `end`. Scalars are values of the
/// parser's builder, kept in ``scalars``; object keys are kept in ``keys`` in document order.
///
/// ```swift
/// var tape = JSONTape<Value>()
/// let root = try parser.parseTape(into: &tape)
/// for child in tape.children(of: root) { ... }
/// ```
public struct JSONTape<Value> {
    /// One JSON value on the tape: its kind, its size, and where its subtree, scalar and key are.
    public struct Node {
        /// What kind of value a node is.
        public enum Kind: UInt8 {
            /// A scalar (null, Boolean, number, string), an array or an object.
            case scalar, array, object
        }

        /// What kind of value the node is.
        public var kind: Kind
        /// The number of elements of an array or members of an object; 0 for a scalar.
        public var count: Int32
        /// The index of the first node after this node's subtree.
        public var end: Int32
        /// A scalar's index in ``JSONTape/scalars``; -1 for an array or object.
        public var scalar: Int32
        /// For an object member, its key's index in ``JSONTape/keys``; -1 otherwise.
        public var key: Int32

        @inlinable init(kind: Kind, count: Int32 = 0, end: Int32, scalar: Int32 = -1, key: Int32) {
            self.kind = kind
            self.count = count
            self.end = end
            self.scalar = scalar
            self.key = key
        }
    }

    /// Every value parsed, each followed by its subtree.
    public var nodes: [Node] = []
    /// The scalars' values, in document order.
    public var scalars: [Value] = []
    /// The object members' keys, in document order.
    public var keys: [String] = []

    /// An empty tape.
    @inlinable public init() {}

    /// The children of the array or object at `index`, in document order.
    @inlinable public func children(of index: Int) -> Children {
        Children(nodes: nodes, parent: index)
    }

    /// The key of the object member whose value is at `index`.
    @inlinable public func key(of index: Int) -> String {
        keys[Int(nodes[index].key)]
    }

    /// The value of the scalar at `index`.
    @inlinable public func scalar(at index: Int) -> Value {
        scalars[Int(nodes[index].scalar)]
    }

    /// The indices of a node's children.
    public struct Children: Sequence {
        @usableFromInline let nodes: [Node]
        @usableFromInline let parent: Int

        @inlinable init(nodes: [Node], parent: Int) {
            self.nodes = nodes
            self.parent = parent
        }

        /// An iterator over the children's indices, in document order.
        @inlinable public func makeIterator() -> Iterator {
            Iterator(nodes: nodes, next: parent + 1, end: Int(nodes[parent].end))
        }

        /// Steps from one child to the next over the child's subtree.
        public struct Iterator: IteratorProtocol {
            @usableFromInline let nodes: [Node]
            @usableFromInline var upcoming: Int
            @usableFromInline let end: Int

            @inlinable init(nodes: [Node], next: Int, end: Int) {
                self.nodes = nodes
                self.upcoming = next
                self.end = end
            }

            /// The next child's index; `nil` after the last.
            @inlinable public mutating func next() -> Int? {
                guard upcoming < end else { return nil }
                let child = upcoming
                upcoming = Int(nodes[child].end)
                return child
            }
        }
    }
}
