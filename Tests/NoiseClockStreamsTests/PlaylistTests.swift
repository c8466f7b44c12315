import Testing
@testable import NoiseClockStreams

@Suite("Playlists a station's URL may answer with")
struct PlaylistTests {
    @Test("a .pls lists its files in order, relative ones resolved against its address")
    func pls() {
        let body = "[playlist]\nNumberOfEntries=3\nFile1=https://ice1.example.org/dronezone-128.mp3\nTitle1=Drone Zone\nFile2=http://ice2.example.org/dronezone-128.mp3\nfile3 = backup.aac\nVersion=2\n"
        #expect(Playlist.parse(body, from: "https://somafm.example.org/dronezone.pls") == .entries([
            "https://ice1.example.org/dronezone-128.mp3", "http://ice2.example.org/dronezone-128.mp3",
            "https://somafm.example.org/backup.aac",
        ]))
    }

    @Test("an M3U lists one address a line; comments, other schemes and repeats are left out")
    func m3u() {
        let body = "#EXTM3U\r\n#EXTINF:-1,Deutschlandfunk\r\nhttps://st01.example.de/dlf/01/128/mp3/stream.mp3\r\nfile:///etc/passwd\r\n\r\nhttps://st01.example.de/dlf/01/128/mp3/stream.mp3\r\n/relative/stream\r\n"
        #expect(Playlist.parse(body, from: "http://example.de/list.m3u") == .entries([
            "https://st01.example.de/dlf/01/128/mp3/stream.mp3", "http://example.de/relative/stream",
        ]))
        #expect(Playlist.parse("http://a.example/s1\nhttp://a.example/s2\n", from: "http://a.example/x.m3u") == .entries(["http://a.example/s1", "http://a.example/s2"]))
    }

    @Test("an .m3u8 with segments or variants is HLS, played as it is")
    func hls() {
        let media = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:100\n#EXTINF:6.0,\nseg100.aac\n"
        let master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS=\"mp4a.40.5\"\nlow/index.m3u8\n"
        #expect(Playlist.parse(media, from: "http://h.example/live.m3u8") == .hls)
        #expect(Playlist.parse(master, from: "http://h.example/master.m3u8") == .hls)
    }

    @Test("at most 20 entries are kept; an answer that is no list is the stream itself")
    func limits() {
        let many = (1...50).map { "http://m.example/\($0)" }.joined(separator: "\n")
        if case .entries(let entries) = Playlist.parse(many, from: "http://m.example/a.m3u") {
            #expect(entries.count == Playlist.maxEntries)
            #expect(entries.first == "http://m.example/1")
        } else {
            Issue.record("not a list")
        }
        #expect(Playlist.parse("", from: "http://m.example/a.m3u") == .stream)
        #expect(Playlist.parse("<html><body>Not found here</body></html>", from: "http://m.example/a.m3u") == .stream)
    }

    @Test("only a playlist's type or ending is read as a playlist")
    func mayBePlaylist() {
        #expect(Playlist.mayBePlaylist(contentType: "audio/x-scpls", url: "http://a.example/listen"))
        #expect(Playlist.mayBePlaylist(contentType: "application/vnd.apple.mpegurl; charset=utf-8", url: "http://a.example/x"))
        #expect(Playlist.mayBePlaylist(contentType: nil, url: "http://a.example/x.PLS?token=1"))
        #expect(!Playlist.mayBePlaylist(contentType: "audio/mpeg", url: "http://a.example/stream.mp3"))
        #expect(!Playlist.mayBePlaylist(contentType: "audio/aac", url: "http://a.example/stream"))
    }
}
