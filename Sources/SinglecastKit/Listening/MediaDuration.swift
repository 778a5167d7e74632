import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The playing length of an audio file, read from its headers: MP3 (a Xing, Info or VBRI
/// frame count, else the constant bitrate), MP4/M4A (`mvhd`), WAV, FLAC, and Ogg Vorbis or Opus.
///
/// Reads only where the headers are (at most the first 68 KiB of an MP3, or the last 128 KiB
/// of an Ogg file), never the whole file. It blocks on file I/O: call it off the cooperative pool.
///
/// TagLib was tried in its place and kept out: its C binding gives whole seconds, and it
/// answers a length for files cut before their headers say one (`Benchmarks/README.md`).
enum MediaDuration {
    /// The length in seconds of the audio file at `path`, or nil when it is not a format this reads,
    /// or its headers do not say (never guessed from a malformed file).
    static func seconds(ofFileAt path: String) -> Double? {
        guard let file = OpenFile(path: path) else { return nil }
        let start = id3v2TagEnd(in: file)
        let head = file.bytes(at: start, count: 12)
        let seconds: Double?
        if head.matches("fLaC", at: 0) {
            seconds = flac(in: file, from: start)
        } else if head.matches("ftyp", at: 4) {
            seconds = mp4(in: file, from: start)
        } else if head.matches("RIFF", at: 0), head.matches("WAVE", at: 8) {
            seconds = wave(in: file, from: start)
        } else if head.matches("OggS", at: 0) {
            seconds = ogg(in: file, from: start)
        } else if start > 0 || MPEGFrame(head, at: 0) != nil {
            seconds = mpegAudio(in: file, from: start)
        } else {
            seconds = nil
        }
        guard let seconds, seconds.isFinite, seconds > 0 else { return nil }
        return seconds
    }

    /// Where the audio starts after an ID3v2 tag at the start of the file (0 without one):
    /// MP3 files have one, and some FLAC files too.
    private static func id3v2TagEnd(in file: OpenFile) -> UInt64 {
        let header = file.bytes(at: 0, count: 10)
        guard header.matches("ID3", at: 0), header.count == 10, header[3] != 0xFF, header[4] != 0xFF,
            header[6..<10].allSatisfy({ $0 < 0x80 })
        else { return 0 }
        let size = header[6..<10].reduce(UInt64(0)) { $0 << 7 | UInt64($1) }
        let hasFooter = header[5] & 0x10 != 0
        return min(10 + size + (hasFooter ? 10 : 0), file.size)
    }

    // MARK: - MP3

    /// How far after the ID3v2 tag (if any) the first frame is looked for.
    private static let frameSearchLength = 64 * 1024
    /// Longer than any MPEG audio frame (2,880 bytes at most), so the frame after the first
    /// one found is always in the bytes read.
    private static let longestFrame = 4 * 1024

    private static func mpegAudio(in file: OpenFile, from start: UInt64) -> Double? {
        let window = file.bytes(at: start, count: frameSearchLength + longestFrame)
        guard let (offset, frame) = firstFrame(in: window) else { return nil }
        if let frames = frame.frameCount(in: window, at: offset) {
            return Double(frames) * Double(frame.samplesPerFrame) / Double(frame.sampleRate)
        }
        let audioStart = start + UInt64(offset)
        var audioEnd = file.size
        if audioEnd - audioStart >= 128, file.bytes(at: audioEnd - 128, count: 3).matches("TAG", at: 0) {
            audioEnd -= 128
        }
        return Double(audioEnd - audioStart) * 8 / Double(frame.bitrate)
    }

    /// The first frame header followed by another one (or by the end of the file), so that
    /// two stray bytes that look like a header are not taken for one.
    private static func firstFrame(in window: [UInt8]) -> (Int, MPEGFrame)? {
        for offset in 0..<min(window.count, frameSearchLength) {
            guard let frame = MPEGFrame(window, at: offset) else { continue }
            let next = offset + frame.length
            if next + 4 > window.count { return (offset, frame) }
            if let following = MPEGFrame(window, at: next), following.isSameStream(as: frame) {
                return (offset, frame)
            }
        }
        return nil
    }

    // MARK: - MP4

    /// The most boxes walked at one level before giving up.
    private static let boxLimit = 4096

    private static func mp4(in file: OpenFile, from start: UInt64) -> Double? {
        guard let moov = box("moov", in: file, from: start, to: file.size),
            let mvhd = box("mvhd", in: file, from: moov.lowerBound, to: moov.upperBound)
        else { return nil }
        let body = file.bytes(at: mvhd.lowerBound, count: Int(min(32, mvhd.upperBound - mvhd.lowerBound)))
        let timescale: UInt64?
        let duration: UInt64?
        switch body.first {
        case 0:
            timescale = body.bigEndian(at: 12, length: 4)
            duration = body.bigEndian(at: 16, length: 4).flatMap { $0 == UInt32.max ? nil : $0 }
        case 1:
            timescale = body.bigEndian(at: 20, length: 4)
            duration = body.bigEndian(at: 24, length: 8).flatMap { $0 == UInt64.max ? nil : $0 }
        default:
            return nil
        }
        guard let timescale, let duration, timescale > 0 else { return nil }
        return Double(duration) / Double(timescale)
    }

    /// The contents of the first box of `type` among the boxes from `start` to `end`, walked
    /// by their sizes; nil when a size is malformed or points past `end`.
    private static func box(_ type: String, in file: OpenFile, from start: UInt64, to end: UInt64) -> Range<UInt64>? {
        var offset = start
        for _ in 0..<boxLimit {
            guard end - offset >= 8 else { return nil }
            let header = file.bytes(at: offset, count: 16)
            guard let size32 = header.bigEndian(at: 0, length: 4) else { return nil }
            var headerLength: UInt64 = 8
            var size = size32
            if size32 == 1 {
                guard let largeSize = header.bigEndian(at: 8, length: 8) else { return nil }
                headerLength = 16
                size = largeSize
            } else if size32 == 0 {
                size = end - offset
            }
            guard size >= headerLength, size <= end - offset else { return nil }
            if header.matches(type, at: 4) {
                return (offset + headerLength)..<(offset + size)
            }
            offset += size
        }
        return nil
    }

    // MARK: - WAV

    /// The most chunks walked before giving up.
    private static let chunkLimit = 1024

    private static func wave(in file: OpenFile, from start: UInt64) -> Double? {
        var offset = start + 12
        var byteRate: UInt64?
        var dataSize: UInt64?
        for _ in 0..<chunkLimit {
            guard byteRate == nil || dataSize == nil, file.size - min(offset, file.size) >= 8 else { break }
            let header = file.bytes(at: offset, count: 8)
            guard let size = header.littleEndian(at: 4, length: 4) else { return nil }
            let body = offset + 8
            if header.matches("fmt ", at: 0) {
                guard size >= 16, let rate = file.bytes(at: body, count: 16).littleEndian(at: 8, length: 4)
                else { return nil }
                byteRate = rate
            } else if header.matches("data", at: 0) {
                dataSize = min(size, file.size - body)
            }
            offset = body + size + (size & 1)
        }
        guard let byteRate, let dataSize, byteRate > 0 else { return nil }
        return Double(dataSize) / Double(byteRate)
    }

    // MARK: - FLAC

    private static func flac(in file: OpenFile, from start: UInt64) -> Double? {
        // "fLaC", then the first metadata block, which is always STREAMINFO (type 0, 34 bytes).
        let head = file.bytes(at: start, count: 4 + 4 + 34)
        guard head.count == 42, head[4] & 0x7F == 0, let length = head.bigEndian(at: 5, length: 3), length == 34,
            let packed = head.bigEndian(at: 18, length: 8)
        else { return nil }
        // 20 bits of sample rate, 3 of channels, 5 of bits per sample, 36 of total samples.
        let sampleRate = packed >> 44
        let totalSamples = packed & 0xF_FFFF_FFFF
        guard sampleRate > 0, totalSamples > 0 else { return nil }
        return Double(totalSamples) / Double(sampleRate)
    }

    // MARK: - Ogg

    /// How much of the end of the file is searched for the last page: more than the longest
    /// Ogg page (65,307 bytes), so a whole page is always in it.
    private static let oggTailLength = 128 * 1024

    private static func ogg(in file: OpenFile, from start: UInt64) -> Double? {
        let first = file.bytes(at: start, count: 27 + 255 + 64)
        // The first page holds only the identification header, 19 bytes or more.
        guard let page = OggPage(first, at: 0), page.end >= page.bodyStart + 19,
            let packet = first.range(from: page.bodyStart, count: 19)
        else { return nil }
        let id = Array(first[packet])
        let rate: UInt64
        var preSkip: UInt64 = 0
        if id.matches("\u{01}vorbis", at: 0), let sampleRate = id.littleEndian(at: 12, length: 4) {
            rate = sampleRate
        } else if id.matches("OpusHead", at: 0), let skip = id.littleEndian(at: 10, length: 2) {
            rate = 48_000
            preSkip = skip
        } else {
            return nil
        }

        let tailStart = max(start, file.size - min(file.size, UInt64(oggTailLength)))
        let tail = file.bytes(at: tailStart, count: oggTailLength)
        var searchEnd = tail.count
        while let found = tail.lastIndex(of: "OggS", before: searchEnd) {
            searchEnd = found
            // A page of this stream that is whole and ends a packet (granule position not -1).
            guard let last = OggPage(tail, at: found), last.serial == page.serial, last.end <= tail.count,
                last.granule >= 0
            else { continue }
            guard rate > 0, UInt64(last.granule) > preSkip else { return nil }
            return Double(UInt64(last.granule) - preSkip) / Double(rate)
        }
        return nil
    }
}

// MARK: - Reading

/// A file opened for reading at offsets, closed when released.
private final class OpenFile {
    private let descriptor: Int32
    /// The file's length in bytes.
    let size: UInt64

    /// Opens a regular, non-empty file; nil for anything else.
    init?(path: String) {
        // Non-blocking, so that a named pipe does not hang the open; regular files ignore it.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        size = UInt64(status.st_size)
    }

    deinit { close(descriptor) }

    /// Up to `count` bytes from `offset`: fewer at the end of the file, none past it.
    func bytes(at offset: UInt64, count: Int) -> [UInt8] {
        guard offset < size, count > 0 else { return [] }
        let wanted = Int(min(UInt64(count), size - offset))
        var buffer = [UInt8](repeating: 0, count: wanted)
        var filled = 0
        while filled < wanted {
            let read = buffer.withUnsafeMutableBytes { bytes in
                pread(descriptor, bytes.baseAddress! + filled, wanted - filled, off_t(offset) + off_t(filled))
            }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { break }
            filled += read
        }
        return Array(buffer.prefix(filled))
    }
}

extension Array where Element == UInt8 {
    /// Whether the bytes at `index` are the ASCII `text`.
    fileprivate func matches(_ text: String, at index: Int) -> Bool {
        let expected = Array(text.utf8)
        guard let range = range(from: index, count: expected.count) else { return false }
        return self[range].elementsEqual(expected)
    }

    /// The unsigned big-endian integer of `length` (at most 8) bytes at `index`, or nil past the end.
    fileprivate func bigEndian(at index: Int, length: Int) -> UInt64? {
        guard length <= 8, let range = range(from: index, count: length) else { return nil }
        return self[range].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The unsigned little-endian integer of `length` (at most 8) bytes at `index`, or nil past the end.
    fileprivate func littleEndian(at index: Int, length: Int) -> UInt64? {
        guard length <= 8, let range = range(from: index, count: length) else { return nil }
        return self[range].reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The indices of `count` bytes from `index`, or nil when they are not all there.
    fileprivate func range(from index: Int, count: Int) -> Range<Int>? {
        guard index >= 0, count >= 0, index <= self.count, count <= self.count - index else { return nil }
        return index..<(index + count)
    }

    /// Where the last `text` starting before `end` begins.
    fileprivate func lastIndex(of text: String, before end: Int) -> Int? {
        let first = text.utf8.first
        return stride(from: end - 1, through: 0, by: -1).first { self[$0] == first && matches(text, at: $0) }
    }
}

// MARK: - MPEG audio frames

/// The header of an MPEG-1, 2 or 2.5 audio frame (layer I, II or III).
private struct MPEGFrame {
    enum Version { case mpeg1, mpeg2, mpeg25 }

    let version: Version
    /// 1, 2 or 3.
    let layer: Int
    /// In bits per second.
    let bitrate: Int
    /// In hertz.
    let sampleRate: Int
    let isMono: Bool
    let samplesPerFrame: Int
    /// The frame's length in bytes, header included.
    let length: Int

    /// The header at `index` of `bytes`, or nil when there is none (free-format and reserved values included).
    init?(_ bytes: [UInt8], at index: Int) {
        guard let range = bytes.range(from: index, count: 4), bytes[index] == 0xFF else { return nil }
        let header = Array(bytes[range])
        guard header[1] & 0xE0 == 0xE0 else { return nil }
        switch (header[1] >> 3) & 0b11 {
        case 0b11: version = .mpeg1
        case 0b10: version = .mpeg2
        case 0b00: version = .mpeg25
        default: return nil
        }
        layer = 4 - Int((header[1] >> 1) & 0b11)
        let bitrateIndex = Int(header[2] >> 4)
        let sampleRateIndex = Int((header[2] >> 2) & 0b11)
        guard layer <= 3, bitrateIndex != 0, bitrateIndex != 15, sampleRateIndex != 3 else { return nil }

        let kilobits: [Int] =
            switch (version, layer) {
            case (.mpeg1, 1): [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
            case (.mpeg1, 2): [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
            case (.mpeg1, _): [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
            case (_, 1): [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
            case (_, _): [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
            }
        bitrate = kilobits[bitrateIndex - 1] * 1000
        let mpeg1Rate = [44_100, 48_000, 32_000][sampleRateIndex]
        sampleRate =
            switch version {
            case .mpeg1: mpeg1Rate
            case .mpeg2: mpeg1Rate / 2
            case .mpeg25: mpeg1Rate / 4
            }
        isMono = header[3] >> 6 == 0b11
        samplesPerFrame =
            switch (version, layer) {
            case (_, 1): 384
            case (.mpeg1, _), (_, 2): 1152
            case (_, _): 576
            }
        let padding = Int((header[2] >> 1) & 1)
        length =
            layer == 1
            ? (12 * bitrate / sampleRate + padding) * 4
            : samplesPerFrame / 8 * bitrate / sampleRate + padding
    }

    /// Whether `other` can be the next frame of the same stream.
    func isSameStream(as other: MPEGFrame) -> Bool {
        version == other.version && layer == other.layer && sampleRate == other.sampleRate
    }

    /// The number of frames in the file, from a Xing or Info header (with its frame count)
    /// or a VBRI header in this frame, which starts at `index` of `bytes`.
    func frameCount(in bytes: [UInt8], at index: Int) -> UInt64? {
        // Xing and Info follow the side information, whose length depends on version and channels.
        let sideInformation =
            switch (version, isMono) {
            case (.mpeg1, true): 17
            case (.mpeg1, false): 32
            case (_, true): 9
            case (_, false): 17
            }
        let xing = index + 4 + sideInformation
        if bytes.matches("Xing", at: xing) || bytes.matches("Info", at: xing) {
            guard let flags = bytes.bigEndian(at: xing + 4, length: 4), flags & 1 != 0 else { return nil }
            return bytes.bigEndian(at: xing + 8, length: 4)
        }
        // VBRI always sits 32 bytes after the header: version, delay, quality, bytes, then frames.
        let vbri = index + 4 + 32
        if bytes.matches("VBRI", at: vbri) {
            return bytes.bigEndian(at: vbri + 14, length: 4)
        }
        return nil
    }
}

// MARK: - Ogg pages

/// The header of an Ogg page.
private struct OggPage {
    /// The position of the last sample of the last packet that ends on this page; -1 when none ends.
    let granule: Int64
    let serial: UInt32
    /// Where the page's data starts and ends, as indices of the bytes it was read from.
    let bodyStart: Int
    let end: Int

    /// The page at `index` of `bytes`, or nil when its header is not all there or is not an Ogg page's.
    init?(_ bytes: [UInt8], at index: Int) {
        guard bytes.matches("OggS", at: index), bytes.bigEndian(at: index + 4, length: 1) == 0,
            let granule = bytes.littleEndian(at: index + 6, length: 8),
            let serial = bytes.littleEndian(at: index + 14, length: 4),
            let segmentCount = bytes.bigEndian(at: index + 26, length: 1),
            let lacing = bytes.range(from: index + 27, count: Int(segmentCount))
        else { return nil }
        self.granule = Int64(bitPattern: granule)
        self.serial = UInt32(serial)
        bodyStart = lacing.upperBound
        end = bodyStart + bytes[lacing].reduce(0) { $0 + Int($1) }
    }
}
