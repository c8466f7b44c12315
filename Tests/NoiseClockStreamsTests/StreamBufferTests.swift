import Foundation
import NoiseClockAudio
import NoiseClockTestSupport
import Synchronization
import Testing
@testable import NoiseClockStreams

/// Frames numbered 0, 1, 2, … in both channels (the left one the number, the right its negative),
/// so a test can see which frames came out, in which order.
private func numbered(_ range: Range<Int>) -> [Int16] {
    range.flatMap { [Int16(truncatingIfNeeded: $0), Int16(truncatingIfNeeded: -$0)] }
}

private func write(_ buffer: StreamBuffer, _ samples: [Int16]) -> Bool {
    samples.withUnsafeBufferPointer { buffer.write($0) }
}

private func read(_ buffer: StreamBuffer, frames: Int) -> [Int16] {
    var out = [Int16](repeating: 0, count: frames * 2)
    let n = out.withUnsafeMutableBufferPointer { buffer.read(into: $0) }
    return Array(out[..<(n * 2)])
}

@Suite("A stream's buffer")
struct StreamBufferTests {
    @Test("frames come out in the order they went in, across the ring's end, each once")
    func order() {
        let buffer = StreamBuffer(seconds: 0.25)
        let capacity = buffer.capacity
        var next = 0, expected = 0
        _ = read(buffer, frames: 1)  // playing: a full ring now waits instead of dropping
        for step in [capacity / 3, capacity / 2, capacity - 7, 1, capacity] {
            #expect(write(buffer, numbered(next..<(next + step))))
            next += step
            let out = read(buffer, frames: capacity)
            #expect(out == numbered(expected..<next))
            expected = next
        }
        #expect(buffer.bufferedFrames == 0)
        #expect(buffer.framesDropped == 0)
    }

    @Test("before it is heard, a full buffer keeps the newest audio (a live station connected ahead of an alarm)")
    func keepsNewestBeforePlaying() {
        let buffer = StreamBuffer(seconds: 0.25)
        let capacity = buffer.capacity
        #expect(write(buffer, numbered(0..<(capacity * 3 + 100))))
        #expect(buffer.bufferedFrames == capacity)
        #expect(buffer.framesDropped == capacity * 2 + 100)
        let out = read(buffer, frames: capacity)
        #expect(out == numbered((capacity * 2 + 100)..<(capacity * 3 + 100)))
    }

    @Test("once heard, a full buffer makes the writer wait until the audio thread has taken frames")
    func writerWaitsWhilePlaying() async {
        let buffer = StreamBuffer(seconds: 0.25)
        let capacity = buffer.capacity
        _ = read(buffer, frames: 1)
        let done = Atomic<Bool>(false)
        let samples = numbered(0..<(capacity * 2))
        Thread.detachNewThread {
            _ = samples.withUnsafeBufferPointer { buffer.write($0) }
            done.store(true, ordering: .releasing)
        }
        #expect(await eventually { buffer.bufferedFrames == capacity })
        // Twice the ring cannot have gone in without a read.
        let doneEarly = done.load(ordering: .acquiring)
        #expect(!doneEarly)
        #expect(read(buffer, frames: capacity) == numbered(0..<capacity))
        #expect(await eventually { done.load(ordering: .acquiring) })
        #expect(read(buffer, frames: capacity) == numbered(capacity..<(capacity * 2)))
        #expect(buffer.framesDropped == 0)
    }

    @Test("close lets a waiting writer go and ends the reader")
    func closeReleasesWriter() async {
        let buffer = StreamBuffer(seconds: 0.25)
        _ = read(buffer, frames: 1)
        let result = Mutex<Bool?>(nil)
        let samples = numbered(0..<(buffer.capacity * 2))
        Thread.detachNewThread {
            let complete = samples.withUnsafeBufferPointer { buffer.write($0) }
            result.withLock { $0 = complete }
        }
        #expect(await eventually { buffer.bufferedFrames == buffer.capacity })
        buffer.close()
        #expect(await eventually { result.withLock { $0 } != nil })
        #expect(result.withLock { $0 } == false)
        #expect(buffer.isDrained)
    }

    @Test("the mixer's source plays silence while the network is behind, and ends only once finished and drained")
    func sourceUnderrun() {
        let buffer = StreamBuffer(seconds: 1)
        let source = StreamSource(buffer: buffer)
        var out = [Int16](repeating: 7, count: 200)
        #expect(write(buffer, numbered(1..<41)))
        // 100 frames asked, 40 there: 40 of audio, then 60 of silence, and the source goes on.
        #expect(out.withUnsafeMutableBufferPointer { source.render(into: $0) } == 100)
        #expect(Array(out[..<80]) == numbered(1..<41))
        #expect(out[80...].allSatisfy { $0 == 0 })
        #expect(source.silentFrames == 60)
        #expect(write(buffer, numbered(1..<11)))
        buffer.finish()
        #expect(out.withUnsafeMutableBufferPointer { source.render(into: $0) } == 10)
        #expect(buffer.isDrained)
        #expect(buffer.framesRead == 50)
    }

    @Test("its memory is the ring, whatever comes: 4 s is 4 s of frames")
    func bounded() {
        let buffer = StreamBuffer(seconds: 4)
        #expect(buffer.capacity == 4 * AudioFormat.sampleRate)
        for _ in 0..<20 { #expect(write(buffer, numbered(0..<AudioFormat.sampleRate))) }
        #expect(buffer.bufferedFrames == buffer.capacity)
    }
}
