import Foundation
import NoiseClockCore
import NoiseClockFace
import NoiseClockTestSupport
import Testing

@Suite("Face files: path safety and content types")
struct FacePathTests {
    @Test("plain relative paths become their segments")
    func plainPaths() {
        #expect(FacePath.segments("css/face.css") == ["css", "face.css"])
        #expect(FacePath.segments("js/app.js") == ["js", "app.js"])
        #expect(FacePath.segments("fonts/Inter%20Regular.woff2") == ["fonts", "Inter Regular.woff2"])
    }

    @Test("paths that could leave the folder or are not plain are refused", arguments: [
        "../secret.txt", "..", "css/../../secret.txt", "%2e%2e/secret.txt", "%2E%2E%2Fsecret.txt", "..%2fsecret.txt",
        "css/%2e%2e/%2e%2e/secret.txt", "/etc/passwd", "%2Fetc%2Fpasswd", "css//face.css", "./index.html", "css/.",
        "index.html%00.css", "index.html\0", "..\\secret.txt", "css%5c..%5c..%5csecret.txt", "bad%zzescape", "half%2",
        "%ff%fe", "",
    ])
    func refused(path: String) {
        #expect(FacePath.segments(Substring(path)) == nil)
    }

    @Test("content types by extension", arguments: [
        ("index.html", "text/html; charset=utf-8"), ("face.css", "text/css; charset=utf-8"),
        ("app.js", "text/javascript; charset=utf-8"), ("store.mjs", "text/javascript; charset=utf-8"),
        ("strings.json", "application/json"), ("icon.svg", "image/svg+xml"), ("font.woff", "font/woff"),
        ("font.woff2", "font/woff2"), ("icon.png", "image/png"), ("LICENSE", "application/octet-stream"),
        ("UPPER.CSS", "text/css; charset=utf-8"),
    ])
    func contentTypes(name: String, type: String) {
        #expect(FacePath.contentType(of: name) == type)
    }

    @Test("a folder serves its regular files only: not a symlink leading out, not a folder, not a missing file")
    func folderFiles() throws {
        let path = try FaceFixture.folder()
        let folder = try #require(FaceFolder(path))
        let css = try #require(folder.file(["css", "face.css"]))
        #expect(String(decoding: css.bytes, as: UTF8.self).contains("background"))
        #expect(css.contentType == "text/css; charset=utf-8")
        #expect(folder.file(["outside"]) == nil, "a symlink to ../secret.txt")
        #expect(folder.file(["css"]) == nil)
        #expect(folder.file(["missing.js"]) == nil)
        // A symlink inside the folder that stays inside is fine.
        try FileManager.default.createSymbolicLink(atPath: "\(path)/style.css", withDestinationPath: "css/face.css")
        #expect(folder.file(["style.css"])?.bytes == css.bytes)
    }

    @Test("the ETag changes when the file does")
    func etag() throws {
        let path = try FaceFixture.folder()
        let folder = try #require(FaceFolder(path))
        let before = try #require(folder.file(["js", "app.js"])).etag
        try "export const face = 22;\n".write(toFile: "\(path)/js/app.js", atomically: true, encoding: .utf8)
        #expect(try #require(folder.file(["js", "app.js"])).etag != before)
    }

    @Test("a folder without index.html is no face folder")
    func noIndex() throws {
        let empty = try makeTemporaryDirectory("noface")
        #expect(FaceFolder(empty) == nil)
        #expect(FaceFolder("\(empty)/missing") == nil)
        #expect(FaceFolder.locate(["\(empty)/missing", try FaceFixture.folder()]) != nil)
    }
}

@Suite("Face messages and the HTTP status of a command's answer")
struct FaceMessagesTests {
    @Test("each error code maps to its HTTP status", arguments: [
        (nil, 200), ("invalid_json", 400), ("invalid_field", 400), ("unknown_verb", 404), ("not_found", 404), ("conflict", 409),
        ("too_large", 413), ("unavailable", 503), ("internal", 500), ("something_new", 500),
    ] as [(String?, Int)])
    func httpStatus(code: String?, status: Int) {
        let response: JSONValue = code.map { ["status": "error", "error": ["code": .string($0), "message": "m"]] } ?? ["status": "ok", "data": nil]
        #expect(FaceMessages.httpStatus(of: response) == status)
    }

    @Test("every CommandError code has a status other than 200")
    func everyCode() {
        for code in CommandError.Code.allCases {
            #expect(FaceMessages.httpStatus(of: CommandResponse(.failure(CommandError(code, "m")), transaction: nil).json) >= 400)
        }
    }

    @Test("a command frame's payload becomes the bytes an MQTT client would send", arguments: [
        (#"{"type":"command","verb":"snooze","id":"c1"}"#, ""),
        (#"{"type":"command","verb":"noise/volume","id":"c1","payload":55}"#, "55"),
        (#"{"type":"command","verb":"noise/play","id":"c1","payload":"rain"}"#, #""rain""#),
        (#"{"type":"command","verb":"alarm/add","id":"c1","payload":{"time":"07:30","days":["mon"]}}"#, #"{"days":["mon"],"time":"07:30"}"#),
        (#"{"type":"command","verb":"x","id":"c1","payload":[1]}"#, "[1]"),
    ])
    func commandPayload(frame: String, payload: String) throws {
        let command = try FaceMessages.command(from: Array(frame.utf8)).get()
        #expect(command.id == "c1")
        #expect(String(decoding: command.payload, as: UTF8.self) == payload)
    }

    @Test("a malformed frame is answered with invalid_json naming the field", arguments: [
        ("not json", "frame", JSONValue.null), ("[1,2]", "frame", .null), (#"{"type":"command","id":"c2"}"#, "verb", "c2"),
        (#"{"type":"command","verb":"","id":"c3"}"#, "verb", "c3"), (#"{"type":"command","verb":7,"id":7}"#, "verb", 7),
        (#"{"type":"hello","verb":"ping","id":"c4"}"#, "type", "c4"), (#"{"verb":"ping","id":"c5"}"#, "type", "c5"),
        (#"{"type":"command","verb":"ping","id":{"a":1}}"#, "id", .null),
    ])
    func malformed(frame: String, field: String, id: JSONValue) throws {
        guard case .failure(let rejection) = FaceMessages.command(from: Array(frame.utf8)) else {
            Issue.record("accepted \(frame)")
            return
        }
        #expect(rejection.error.code == .invalidJSON)
        #expect(rejection.error.field == field)
        #expect(rejection.id == id)
        let answer = try JSONValue.parse(rejection.frame)
        #expect(answer["type"] == "response")
        #expect(answer["payload"]?["status"] == "error")
        #expect(answer["payload"]?["error"]?["field"] == .string(field))
    }

    @Test("states and events are framed as SPEC §9 shows")
    func framing() throws {
        let state = try JSONValue.parse(FaceMessages.encode(.state(topic: "alarm/next", value: ["id": nil])))
        #expect(state == ["type": "state", "topic": "alarm/next", "payload": ["id": nil]])
        let event = try JSONValue.parse(FaceMessages.encode(.event(["event": "alarm_ringing"])))
        #expect(event == ["type": "event", "payload": ["event": "alarm_ringing"]])
    }
}
