/// The text a stream sends about itself (ICY headers and blocks, Ogg and ID3 tags), made safe to
/// show: stations send UTF-8 or Latin-1, markup and control characters (SPEC §8: hostile input).
public enum StreamText {
    /// The longest `now_playing` the node keeps (SPEC §15).
    public static let maxLength = 200

    /// Bytes as UTF-8 when they are, else as Latin-1 (what older ICY servers send).
    public static func decode(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    public static func decode(cString: UnsafePointer<CChar>) -> String {
        var bytes: [UInt8] = []
        var p = cString
        while p.pointee != 0 {
            bytes.append(UInt8(bitPattern: p.pointee))
            p += 1
        }
        return decode(bytes)
    }

    /// `StreamTitle` of an ICY block (`StreamTitle='Artist - Title';StreamUrl='…';`): the text
    /// between its quotes, which may itself hold quotes (the field ends at `';`).
    public static func icyTitle(in block: String) -> String? {
        guard let key = block.firstRange(of: "StreamTitle='") else { return nil }
        let rest = block[key.upperBound...]
        if let end = rest.firstRange(of: "';") { return String(rest[..<end.lowerBound]) }
        // The last field may lack its `;`, and a block is padded with NULs.
        let field = rest.prefix { $0 != "\0" }
        return String(field.hasSuffix("'") ? field.dropLast() : field)
    }

    /// A header's value from the ICY response headers FFmpeg keeps (`icy-name: Test FM\n`), or nil.
    public static func icyHeader(_ name: String, in headers: String) -> String? {
        for line in headers.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == name {
                let value = trimmed(line[line.index(after: colon)...])
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    /// Plain text: markup tags removed (a `<` never closed is kept as text), control characters
    /// gone, runs of white space one space, at most `maxLength` characters (cut at a word when there
    /// is one near the end, with "…").
    public static func plain(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var tag: String.UnicodeScalarView?
        var lastWasSpace = true
        func append(_ scalar: Unicode.Scalar) {
            if scalar.properties.isWhitespace {
                if !lastWasSpace { out.append(" ") }
                lastWasSpace = true
                return
            }
            switch scalar.properties.generalCategory {
            case .control, .format, .unassigned, .privateUse, .surrogate: return
            default:
                out.append(scalar)
                lastWasSpace = false
            }
        }
        for scalar in text.unicodeScalars {
            if tag != nil {
                if scalar == ">" { tag = nil } else { tag?.append(scalar) }
            } else if scalar == "<" {
                tag = String.UnicodeScalarView()
            } else {
                append(scalar)
            }
        }
        if let tag {
            append("<")
            tag.forEach(append)
        }
        var result = String(out)
        if result.hasSuffix(" ") { result.removeLast() }
        guard result.count > maxLength else { return result }
        let cut = result.prefix(maxLength - 1)
        if let space = cut.lastIndex(of: " "), cut.distance(from: space, to: cut.endIndex) < 30 {
            return cut[..<space] + "…"
        }
        return cut + "…"
    }
}

/// `text` without the spaces and tabs at its ends.
func trimmed(_ text: some StringProtocol) -> String {
    let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    guard let start = text.firstIndex(where: { !isBlank($0) }), let end = text.lastIndex(where: { !isBlank($0) }) else { return "" }
    return String(text[start...end])
}
