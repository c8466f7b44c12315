import Foundation
import NoiseClockCore
import Testing

@Suite("FileBytes: whole small files, as zones are read")
struct FileBytesTests {
    @Test("FileBytes reads a file whole, /dev/null as nothing, and refuses directories, missing files and files over the limit")
    func fileBytes() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bytes-\(UUID().uuidString)").path
        let content = (0..<20_000).map { UInt8($0 % 251) }
        try Data(content).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(FileBytes.read(path) == content)
        #expect(FileBytes.read(path, limit: 19_999) == nil)
        #expect(FileBytes.read("/dev/null") == [])
        #expect(FileBytes.read("/") == nil)
        #expect(FileBytes.read("/nonexistent/file") == nil)
    }
}
