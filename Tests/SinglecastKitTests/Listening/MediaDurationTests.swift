import Foundation
import TestSupport
import Testing

@testable import SinglecastKit

@Suite struct MediaDurationTests {
    // ffprobe's lengths, from Fixtures/media/README.md. ffprobe counts Opus's pre-skip
    // (312 samples, 6.5 ms) as playing time; the reader takes it off, as the Opus spec says.
    @Test(arguments: [
        ("cbr.mp3", 3.168, 0.01),
        ("vbr-xing.mp3", 3.168, 0.001),
        ("moov-at-end.m4a", 3.0, 0.001),
        ("moov-first.m4a", 3.0, 0.001),
        ("tone.wav", 0.5, 0.001),
        ("tone.flac", 2.0, 0.001),
        ("tone.ogg", 3.0, 0.001),
        ("tone.opus", 3.0065, 0.01),
    ])
    func readsTheLengthFfprobeReports(fixture: String, ffprobe: Double, tolerance: Double) throws {
        let seconds = try #require(MediaDuration.seconds(ofFileAt: Fixtures.url("media/\(fixture)").path))
        #expect(abs(seconds - ffprobe) <= tolerance, "\(fixture): \(seconds) s")
    }

    /// The same frames as cbr.mp3 with a 128-byte ID3v1 tag after them, which is not audio
    /// (ffprobe counts it: 3.232 s).
    @Test func anID3v1TagIsNotCountedAsAudio() throws {
        let plain = try #require(MediaDuration.seconds(ofFileAt: Fixtures.url("media/cbr.mp3").path))
        let tagged = try #require(MediaDuration.seconds(ofFileAt: Fixtures.url("media/cbr-id3v1.mp3").path))
        #expect(abs(tagged - plain) < 0.001)
    }

    @Test(arguments: ["feeds/empty.xml", "feeds/not-a-feed.txt", "media/README.md", "media/missing.mp3", "media"])
    func answersNilForWhatIsNotAnAudioFile(fixture: String) {
        #expect(MediaDuration.seconds(ofFileAt: Fixtures.url(fixture).path) == nil)
    }

    @Test(arguments: [
        // Cut inside mdat, before moov.
        ("moov-at-end.m4a", 5000),
        // Cut inside moov, before mvhd's figures.
        ("moov-first.m4a", 60),
        // Cut inside the fmt chunk.
        ("tone.wav", 30),
        // Cut inside STREAMINFO.
        ("tone.flac", 20),
        // Cut inside the identification header.
        ("tone.opus", 40),
        // Cut inside the ID3v2 tag.
        ("vbr-xing.mp3", 40),
    ])
    func answersNilForAFileCutBeforeItsLength(fixture: String, keptBytes: Int) throws {
        let bytes = try Fixtures.data("media/\(fixture)").prefix(keptBytes)
        try withFile(Array(bytes)) { path in
            #expect(MediaDuration.seconds(ofFileAt: path) == nil)
        }
    }

    /// tone.ogg's last page starts at byte 3815; the page before it ends at sample 16,128 of 8,000 a second.
    @Test func anOggFileCutInsideItsLastPageEndsAtTheLastWholePage() throws {
        let bytes = try Fixtures.data("media/tone.ogg").prefix(4000)
        try withFile(Array(bytes)) { path in
            #expect(MediaDuration.seconds(ofFileAt: path) == 16128.0 / 8000)
        }
    }

    @Test(arguments: [
        ("a movie header", mp4(mvhd(timescale: 1000, duration: 2500)), 2.5),
        ("a version 1 movie header", mp4(mvhdVersion1(timescale: 48000, duration: 96000)), 2.0),
        ("moov sized 0 (to the end)", ftyp + box("moov", size: 0, mvhd(timescale: 1000, duration: 2500)), 2.5),
        (
            "moov after mdat with a 64-bit size",
            ftyp + largeBox("mdat", [0, 0, 0]) + box("moov", mvhd(timescale: 1, duration: 7)), 7
        ),
        ("a box past the end", ftyp + box("mdat", size: 0xFFFF_FFFF, []) + box("moov", mvhd(timescale: 1000, duration: 2500)), nil),
        ("a 64-bit size past the end", ftyp + box("mdat", size: 1, be64(.max)) + box("moov", mvhd(timescale: 1000, duration: 2500)), nil),
        ("a size smaller than its header", ftyp + box("free", size: 3, []) + box("moov", mvhd(timescale: 1000, duration: 2500)), nil),
        ("mvhd past the end of moov", ftyp + box("moov", box("mvhd", size: 0x7FFF_FFFF, [])), nil),
        ("a timescale of 0", mp4(mvhd(timescale: 0, duration: 2500)), nil),
        ("a duration of 0", mp4(mvhd(timescale: 1000, duration: 0)), nil),
        ("an unknown duration", mp4(mvhd(timescale: 1000, duration: 0xFFFF_FFFF)), nil),
        ("a data chunk larger than the file", wave([fmt(byteRate: 8000), chunk("data", size: 0xFFFF_FFFF, zeros(4000))]), 0.5),
        ("an odd chunk and its pad byte", wave([chunk("junk", [1, 2, 3]) + [0], fmt(byteRate: 100), chunk("data", zeros(50))]), 0.5),
        ("a fmt chunk past the end", wave([chunk("fmt ", size: 0xFFFF_FFFF, zeros(16)), chunk("data", zeros(50))]), nil),
        ("a byte rate of 0", wave([fmt(byteRate: 0), chunk("data", zeros(50))]), nil),
        ("no data chunk", wave([fmt(byteRate: 100)]), nil),
        ("FLAC's total samples", flac(sampleRate: 44100, totalSamples: 88200), 2.0),
        ("FLAC without total samples", flac(sampleRate: 44100, totalSamples: 0), nil),
        ("an ID3v2 tag past the end", Array("ID3".utf8) + [4, 0, 0, 0x7F, 0x7F, 0x7F, 0x7F] + zeros(20), nil),
        ("Opus's last granule less its pre-skip", oggPage(opusHead(preSkip: 312), granule: 0) + oggPage(zeros(10), granule: 48312), 1.0),
        (
            "the last page that ends a packet",
            oggPage(opusHead(preSkip: 0), granule: 0) + oggPage(zeros(10), granule: 48000)
                + oggPage(zeros(10), granule: -1), 1.0
        ),
        (
            "another stream's last page",
            oggPage(opusHead(preSkip: 0), granule: 0) + oggPage(zeros(10), granule: 48000)
                + oggPage(zeros(10), granule: 96000, serial: 2), 1.0
        ),
        ("an Ogg stream with no audio", oggPage(opusHead(preSkip: 312), granule: 0), nil),
    ] as [(String, [UInt8], Double?)])
    func readsCraftedHeadersWithoutTrustingTheirSizes(_ name: String, bytes: [UInt8], expected: Double?) throws {
        try withFile(bytes) { path in
            #expect(MediaDuration.seconds(ofFileAt: path) == expected, "\(name)")
        }
    }

    /// Writes `bytes` to a file of its own for `body`, then removes it.
    private func withFile(_ bytes: [UInt8], _ body: (String) throws -> Void) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("media-\(UUID().uuidString)")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        try body(url.path)
    }
}

// MARK: - Crafted files

private func zeros(_ count: Int) -> [UInt8] { [UInt8](repeating: 0, count: count) }
private func be32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
private func be64(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
private func le16(_ value: UInt16) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
private func le32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }

/// An MP4 box; `size` overrides the true one.
private func box(_ type: String, size: UInt32? = nil, _ contents: [UInt8]) -> [UInt8] {
    be32(size ?? UInt32(8 + contents.count)) + Array(type.utf8) + contents
}

/// An MP4 box with its size in the 64-bit field.
private func largeBox(_ type: String, _ contents: [UInt8]) -> [UInt8] {
    be32(1) + Array(type.utf8) + be64(UInt64(16 + contents.count)) + contents
}

private let ftyp = box("ftyp", Array("M4A ".utf8) + zeros(4))

private func mp4(_ mvhd: [UInt8]) -> [UInt8] { ftyp + box("moov", mvhd) }

private func mvhd(timescale: UInt32, duration: UInt32) -> [UInt8] {
    box("mvhd", zeros(4) + zeros(8) + be32(timescale) + be32(duration) + zeros(80))
}

private func mvhdVersion1(timescale: UInt32, duration: UInt64) -> [UInt8] {
    box("mvhd", [1, 0, 0, 0] + zeros(16) + be32(timescale) + be64(duration) + zeros(80))
}

/// A RIFF chunk; `size` overrides the true one.
private func chunk(_ id: String, size: UInt32? = nil, _ contents: [UInt8]) -> [UInt8] {
    Array(id.utf8) + le32(size ?? UInt32(contents.count)) + contents
}

/// Mono 8-bit PCM whose byte rate is its sample rate.
private func fmt(byteRate: UInt32) -> [UInt8] {
    chunk("fmt ", le16(1) + le16(1) + le32(byteRate) + le32(byteRate) + le16(1) + le16(8))
}

private func wave(_ chunks: [[UInt8]]) -> [UInt8] {
    let body = Array("WAVE".utf8) + chunks.flatMap { $0 }
    return chunk("RIFF", body)
}

private func flac(sampleRate: UInt64, totalSamples: UInt64) -> [UInt8] {
    // Sample rate (20 bits), channels - 1 (3), bits per sample - 1 (5: 16 bits), total samples (36).
    let packed = sampleRate << 44 | 0 << 41 | 15 << 36 | totalSamples
    let streamInfo = zeros(10) + be64(packed) + zeros(16)
    return Array("fLaC".utf8) + [0x80, 0, 0, 34] + streamInfo
}

private func opusHead(preSkip: UInt16) -> [UInt8] {
    Array("OpusHead".utf8) + [1, 1] + le16(preSkip) + le32(48000) + [0, 0, 0]
}

/// An Ogg page holding one packet of fewer than 255 bytes.
private func oggPage(_ packet: [UInt8], granule: Int64, serial: UInt32 = 1) -> [UInt8] {
    let granuleBytes = withUnsafeBytes(of: granule.littleEndian, Array.init)
    return Array("OggS".utf8) + [0, 0] + granuleBytes + le32(serial) + zeros(4) + zeros(4) + [1, UInt8(packet.count)]
        + packet
}
