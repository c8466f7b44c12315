/// A strict RFC 8259 parser for `JSONValue.parse`.
///
/// Written out rather than going through `JSONDecoder` so that a fault is reported the same way
/// every time, at the first place it occurs in document order, with its byte offset (the
/// decoder's answer for a document with two faults depended on Dictionary order), and so that a
/// command is parsed in one pass without Foundation's intermediate values.
struct JSONParser: ~Copyable {
    /// Objects and arrays nested deeper than this are refused (the node's documents are 3 deep).
    static let maxDepth = 128

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONValue.ParseError) -> JSONValue {
        var parser = JSONParser(bytes)
        parser.skipWhitespace()
        guard parser.index < bytes.count else { throw parser.failure("no JSON value in the text") }
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.unexpected("after the value") }
        return value
    }

    // MARK: - Values

    private mutating func value() throws(JSONValue.ParseError) -> JSONValue {
        guard index < bytes.count else { throw failure("the text ends where a value should be") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw unexpected("where a value should be")
        }
    }

    private mutating func object() throws(JSONValue.ParseError) -> JSONValue {
        try enter()
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else { throw unexpected("where a member name in double quotes should be") }
            let keyStart = index
            let key = try string()
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw unexpected("where ':' should follow a member name") }
            index += 1
            skipWhitespace()
            let member = try value()
            guard members.updateValue(member, forKey: key) == nil else {
                throw JSONValue.ParseError(reason: "member \"\(key)\" appears twice (at offset \(keyStart))")
            }
            skipWhitespace()
            if peek(UInt8(ascii: ",")) { index += 1; continue }
            if peek(UInt8(ascii: "}")) { index += 1; break }
            throw unexpected("where ',' or '}' should be")
        }
        depth -= 1
        return .object(members)
    }

    private mutating func array() throws(JSONValue.ParseError) -> JSONValue {
        try enter()
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            index += 1
            depth -= 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try value())
            skipWhitespace()
            if peek(UInt8(ascii: ",")) { index += 1; continue }
            if peek(UInt8(ascii: "]")) { index += 1; break }
            throw unexpected("where ',' or ']' should be")
        }
        depth -= 1
        return .array(items)
    }

    private mutating func enter() throws(JSONValue.ParseError) {
        depth += 1
        guard depth <= Self.maxDepth else { throw failure("objects and arrays nested deeper than \(Self.maxDepth)") }
    }

    private mutating func literal(_ word: StaticString) throws(JSONValue.ParseError) {
        let start = index
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for byte in expected {
            guard index < bytes.count, bytes[index] == byte else {
                index = start
                throw unexpected("where a value should be")
            }
            index += 1
        }
    }

    // MARK: - Numbers

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, read as the nearest Double.
    private mutating func number() throws(JSONValue.ParseError) -> Double {
        let start = index
        if peek(UInt8(ascii: "-")) { index += 1 }
        if peek(UInt8(ascii: "0")) {
            index += 1
        } else {
            guard digits() > 0 else { throw unexpected("where a digit should be") }
        }
        if peek(UInt8(ascii: ".")) {
            index += 1
            guard digits() > 0 else { throw unexpected("where a digit should follow '.'") }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            guard digits() > 0 else { throw unexpected("where an exponent's digits should be") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let number = Double(text), number.isFinite else {
            throw JSONValue.ParseError(reason: "number \(text.prefix(40)) at offset \(start) is out of range")
        }
        return number
    }

    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }

    // MARK: - Strings

    private mutating func string() throws(JSONValue.ParseError) -> String {
        let open = index
        index += 1
        var decoded: [UInt8] = []
        var runStart = index
        while true {
            guard index < bytes.count else {
                throw JSONValue.ParseError(reason: "the string that starts at offset \(open) is never closed")
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { break }
            if byte < 0x20 {
                throw JSONValue.ParseError(reason: "control character 0x\(hex(byte)) at offset \(index) must be escaped in a string")
            }
            if byte == UInt8(ascii: "\\") {
                decoded.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                try escape(into: &decoded)
                runStart = index
                continue
            }
            index += 1
        }
        let text: String?
        if decoded.isEmpty {
            text = String(validating: UnsafeBufferPointer(rebasing: bytes[runStart..<index]), as: UTF8.self)
        } else {
            decoded.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            text = String(validating: decoded, as: UTF8.self)
        }
        guard let text else {
            throw JSONValue.ParseError(reason: "the string that starts at offset \(open) is not valid UTF-8")
        }
        index += 1
        return text
    }

    /// One escape sequence starting at the backslash; appends the UTF-8 of what it stands for.
    private mutating func escape(into out: inout [UInt8]) throws(JSONValue.ParseError) {
        let start = index
        index += 1
        guard index < bytes.count else { throw failure("the text ends inside an escape sequence") }
        let letter = bytes[index]
        index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(letter)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var value = try hexQuad(escapeAt: start)
            if (0xD800...0xDBFF).contains(value) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw JSONValue.ParseError(reason: "the escape at offset \(start) is half of a surrogate pair without its other half")
                }
                index += 2
                let low = try hexQuad(escapeAt: start)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw JSONValue.ParseError(reason: "the escape at offset \(start) is half of a surrogate pair without its other half")
                }
                value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(value) {
                throw JSONValue.ParseError(reason: "the escape at offset \(start) is half of a surrogate pair without its other half")
            }
            guard let scalar = Unicode.Scalar(value) else {
                throw JSONValue.ParseError(reason: "the escape at offset \(start) is not a Unicode scalar")
            }
            out.append(contentsOf: String(Character(scalar)).utf8)
        default:
            index = start
            throw JSONValue.ParseError(reason: "invalid escape sequence at offset \(start)")
        }
    }

    private mutating func hexQuad(escapeAt start: Int) throws(JSONValue.ParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = Self.hexDigit(bytes[index]) else {
                throw JSONValue.ParseError(reason: "the \\u escape at offset \(start) needs four hex digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    // MARK: - Helpers

    private func peek(_ byte: UInt8) -> Bool {
        index < bytes.count && bytes[index] == byte
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func failure(_ what: String) -> JSONValue.ParseError {
        JSONValue.ParseError(reason: "\(what) (offset \(index))")
    }

    /// "unexpected 'x' at offset 7 where …", or "the text ends …" when there is nothing left.
    private func unexpected(_ context: String) -> JSONValue.ParseError {
        guard index < bytes.count else {
            return JSONValue.ParseError(reason: "the text ends at offset \(index) \(context)")
        }
        let byte = bytes[index]
        let shown = (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(hex(byte))"
        return JSONValue.ParseError(reason: "unexpected \(shown) at offset \(index) \(context)")
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
