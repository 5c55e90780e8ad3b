/// The one encoder of Upright's records (decision lines, status, control replies): a `Codable`
/// value as one line of JSON, keys in the order the value encodes them, written `{"k": v, ...}`
/// as the decision lines have always been. Standard library only, so the pure core can use it.
public enum JSONLine {
    /// The value as one JSON line.
    public static func encode(_ value: some Encodable) -> String {
        let encoder = TreeEncoder()
        do {
            try value.encode(to: encoder)
        } catch {
            return #"{"error": "internal: the record could not be encoded"}"#
        }
        var out = ""
        encoder.storage.root.write(to: &out)
        return out
    }
}

/// A number written exactly as given (`12.300`): the play log's fixed three decimals. Read back,
/// it is the number.
public struct JSONNumberText: Codable, Sendable, Hashable {
    public var text: String
    public init(_ text: String) { self.text = text }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(text)  // written raw by JSONLine (see TreeEncoder)
    }
    public init(from decoder: any Decoder) throws {
        text = String(try decoder.singleValueContainer().decode(Double.self))
    }
    /// The number.
    public var value: Double { Double(text) ?? .nan }
}

/// A JSON value under construction; objects keep their keys' order.
private final class Node {
    enum Value {
        case null
        case raw(String)
        case string(String)
        case array([Node])
        case object([(String, Node)])
    }

    var value: Value

    init(_ value: Value) { self.value = value }

    func write(to out: inout String) {
        switch value {
        case .null: out += "null"
        case .raw(let s): out += s
        case .string(let s): out += JSONText.quote(s)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += ", " }
                item.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, (key, node)) in members.enumerated() {
                if i > 0 { out += ", " }
                out += JSONText.quote(key) + ": "
                node.write(to: &out)
            }
            out += "}"
        }
    }

    func append(_ node: Node) {
        if case .array(var items) = value {
            items.append(node)
            value = .array(items)
        }
    }

    func set(_ key: String, _ node: Node) {
        guard case .object(var members) = value else { return }
        if let i = members.firstIndex(where: { $0.0 == key }) {
            members[i].1 = node
        } else {
            members.append((key, node))
        }
        value = .object(members)
    }
}

private final class Storage {
    let root = Node(.null)
}

private struct TreeEncoder: Encoder {
    var storage = Storage()
    var node: Node?
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The node this encoder writes: its own, or the root.
    var target: Node { node ?? storage.root }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = target.value {} else { target.value = .object([]) }
        return KeyedEncodingContainer(Keyed<Key>(node: target, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = target.value {} else { target.value = .array([]) }
        return Unkeyed(node: target, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        Single(node: target, codingPath: codingPath)
    }

    /// The node for any value: scalars directly, everything else through its own `encode(to:)`.
    static func node(for value: some Encodable, at path: [any CodingKey]) throws -> Node {
        switch value {
        case let n as JSONNumberText: return Node(.raw(n.text))
        case let s as String: return Node(.string(s))
        case let b as Bool: return Node(.raw(b ? "true" : "false"))
        case let d as Double: return Node(d.isFinite ? .raw("\(d)") : .null)
        case let f as Float: return Node(f.isFinite ? .raw("\(f)") : .null)
        case let i as any BinaryInteger: return Node(.raw("\(i)"))
        default:
            let node = Node(.null)
            try value.encode(to: TreeEncoder(node: node, codingPath: path))
            return node
        }
    }

    private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        var codingPath: [any CodingKey]

        mutating func encodeNil(forKey key: Key) throws { node.set(key.stringValue, Node(.null)) }
        mutating func encode(_ value: some Encodable, forKey key: Key) throws {
            node.set(key.stringValue, try TreeEncoder.node(for: value, at: codingPath + [key]))
        }
        mutating func nestedContainer<N: CodingKey>(keyedBy: N.Type, forKey key: Key) -> KeyedEncodingContainer<N> {
            let child = Node(.object([]))
            node.set(key.stringValue, child)
            return KeyedEncodingContainer(Keyed<N>(node: child, codingPath: codingPath + [key]))
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = Node(.array([]))
            node.set(key.stringValue, child)
            return Unkeyed(node: child, codingPath: codingPath + [key])
        }
        mutating func superEncoder() -> any Encoder { TreeEncoder(node: node, codingPath: codingPath) }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            let child = Node(.null)
            node.set(key.stringValue, child)
            return TreeEncoder(node: child, codingPath: codingPath + [key])
        }
    }

    private struct Unkeyed: UnkeyedEncodingContainer {
        let node: Node
        var codingPath: [any CodingKey]
        var count: Int {
            if case .array(let items) = node.value { return items.count }
            return 0
        }

        mutating func encodeNil() throws { node.append(Node(.null)) }
        mutating func encode(_ value: some Encodable) throws {
            node.append(try TreeEncoder.node(for: value, at: codingPath))
        }
        mutating func nestedContainer<N: CodingKey>(keyedBy: N.Type) -> KeyedEncodingContainer<N> {
            let child = Node(.object([]))
            node.append(child)
            return KeyedEncodingContainer(Keyed<N>(node: child, codingPath: codingPath))
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let child = Node(.array([]))
            node.append(child)
            return Unkeyed(node: child, codingPath: codingPath)
        }
        mutating func superEncoder() -> any Encoder {
            let child = Node(.null)
            node.append(child)
            return TreeEncoder(node: child, codingPath: codingPath)
        }
    }

    private struct Single: SingleValueEncodingContainer {
        let node: Node
        var codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.value = .null }
        mutating func encode(_ value: some Encodable) throws {
            node.value = try TreeEncoder.node(for: value, at: codingPath).value
        }
    }
}
