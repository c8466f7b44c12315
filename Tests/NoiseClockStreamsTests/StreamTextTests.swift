import Testing
@testable import NoiseClockStreams

@Suite("What a stream says about itself")
struct StreamTextTests {
    @Test("the title of an ICY block, with quotes inside it, and the block's NUL padding")
    func icyTitle() {
        #expect(StreamText.icyTitle(in: "StreamTitle='Miles Davis - So What';StreamUrl='';") == "Miles Davis - So What")
        #expect(StreamText.icyTitle(in: "StreamTitle='Rock 'n' Roll';") == "Rock 'n' Roll")
        #expect(StreamText.icyTitle(in: "StreamTitle='Last';\0\0\0") == "Last")
        #expect(StreamText.icyTitle(in: "StreamTitle='No end'\0\0") == "No end")
        #expect(StreamText.icyTitle(in: "StreamUrl='x';") == nil)
    }

    @Test("UTF-8 when the bytes are UTF-8, else Latin-1")
    func encodings() {
        #expect(StreamText.decode(Array("Grüße".utf8)) == "Grüße")
        #expect(StreamText.decode([0x47, 0x72, 0xFC, 0xDF, 0x65]) == "Grüße")
    }

    @Test("markup, control characters and runs of space are removed; at most 200 characters")
    func plain() {
        #expect(StreamText.plain("  <b>Nightly</b>\u{7} <i>Rain</i>\t\n Song\u{200B} ") == "Nightly Rain Song")
        #expect(StreamText.plain("<script>alert(1)</script>Jazz") == "alert(1)Jazz")
        #expect(StreamText.plain("a < b") == "a < b")
        #expect(StreamText.plain("Artist <3") == "Artist <3")
        let long = String(repeating: "word ", count: 100)
        let cut = StreamText.plain(long)
        #expect(cut.count <= StreamText.maxLength)
        #expect(cut.hasSuffix("…"))
        #expect(StreamText.plain(String(repeating: "x", count: 500)).count == StreamText.maxLength)
    }

    @Test("a header of the ICY response, by its name in any case")
    func icyHeader() {
        let headers = "icy-br: 128\nICY-Name: Test FM\nicy-genre:\n"
        #expect(StreamText.icyHeader("icy-name", in: headers) == "Test FM")
        #expect(StreamText.icyHeader("icy-br", in: headers) == "128")
        #expect(StreamText.icyHeader("icy-genre", in: headers) == nil)
        #expect(StreamText.icyHeader("icy-url", in: headers) == nil)
    }
}
