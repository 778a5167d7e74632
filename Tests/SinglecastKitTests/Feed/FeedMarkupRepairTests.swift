import Foundation
import TestSupport
import Testing

@testable import SinglecastKit

/// Runs `text` through a repair, `chunkSize` bytes at a time, and returns what libxml2 would
/// read and the line of the first fault.
private func repaired(_ text: String, chunkSize: Int = .max) throws -> (text: String, faultLine: Int?) {
    var repair = FeedMarkupRepair()
    var output: [UInt8] = []
    let bytes = Array(text.utf8)
    var start = 0
    repeat {
        let end = min(bytes.count, start + min(chunkSize, bytes.count))
        try bytes[start..<end].withUnsafeBytes { chunk in
            try repair.process(chunk, filterFault: nil, isFinal: false, lineAtEnd: lineAtEnd(output)) {
                output += $0
            }
        }
        start = end
    } while start < bytes.count
    try repair.process(
        UnsafeRawBufferPointer(start: nil, count: 0), filterFault: nil, isFinal: true, lineAtEnd: lineAtEnd(output)
    ) { output += $0 }
    return (String(decoding: output, as: UTF8.self), repair.firstFaultLine)
}

/// The text with each CDATA section written as text (`&` and `<` escaped): repairs that open
/// their sections at other places give the same text when libxml2 reads the same characters.
private func asText(_ text: String) -> String {
    var result = ""
    var rest = Substring(text)
    while let open = rest.range(of: "<![CDATA[") {
        result += rest[..<open.lowerBound]
        rest = rest[open.upperBound...]
        let close = rest.range(of: "]]>") ?? rest.endIndex..<rest.endIndex
        result += rest[..<close.lowerBound].replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        rest = rest[close.upperBound...]
    }
    return result + rest
}

/// The line on which `text` ends, as libxml2 would count it.
private func lineAtEnd(_ text: [UInt8]) -> Int {
    1 + text.filter { $0 == 0x0A }.count
}

@Suite struct FeedMarkupRepairTests {
    @Test(arguments: [
        // Well-formed markup passes unchanged.
        ("<rss><a x=\"1&amp;2\"><![CDATA[&<]]><!-- & --></a></rss>", nil as String?, nil as Int?),
        ("<?xml version=\"1.0\"?>\n<!DOCTYPE rss [<!ENTITY a \"b\">]>\n<rss/>", nil, nil),
        ("<rss></rss>\n<!-- generated -->\n", nil, nil),
        // References: in text, their characters in a CDATA section to the next markup, but for
        // a tab, line feed or carriage return.
        ("<rss><a x=\"1&amp;2\">&lt;&#38;&#x1F3A7;&eacute;</a></rss>", "<rss><a x=\"1&amp;2\"><![CDATA[<&\u{1F3A7}\u{E9}]]></a></rss>", nil),
        ("<rss>a &lt;b&gt; ]]&gt; c&#10;d</rss>", "<rss>a <![CDATA[<b> ]]]]><![CDATA[> c]]>&#10;d</rss>", nil),
        ("<rss>\n&lt;x & y</rss>", "<rss>\n<![CDATA[<x & y]]></rss>", 2),
        ("<rss>\nTom & Jerry &gtgt; &#12 &</rss>", "<rss>\nTom &amp; Jerry &amp;gtgt; &amp;#12 &amp;</rss>", 2),
        ("<rss>a&#x1;b&#0;c&#xFFFE;d</rss>", "<rss>abcd</rss>", 1),
        ("<rss><e url=\"a?b=1&c=2&eacute;\"/></rss>", "<rss><e url=\"a?b=1&amp;c=2&#233;\"/></rss>", 1),
        // End tags.
        ("<rss><t>x</tt><g>y</g></rss>", "<rss><t>x</t><g>y</g></rss>", 1),
        ("<rss><d>a <i>b</b> c</p></d></rss>", "<rss><d>a <i>b</i> c</d></rss>", 1),
        ("<rss><d>a<br>b</d></rss>", "<rss><d>a<br>b</br></d></rss>", 1),
        ("<rss><item><t>1</t>\n<item><t>2</t></rss>", "<rss><item><t>1</t>\n</item><item><t>2</t></item></rss>", 2),
        // CDATA, declarations, text outside the root.
        ("<rss><d><![CDATA[<p>x</p> & y</d></rss>", "<rss><d><![CDATA[<p>x</p> & y]]></d></rss>", 1),
        ("<!-- c -->\n<?xml version=\"1.0\"?>\n<rss/>", "<!-- c -->\n\n<rss/>", 2),
        ("PHP Warning: x\n<?xml version=\"1.0\"?><rss/>", "<?xml version=\"1.0\"?><rss/>", 1),
        ("<rss/>\n<rss>again</rss>", "<rss/>\n", 2),
        ("<rss>a < b</rss>", "<rss>a &lt; b</rss>", 1),
    ])
    func repairs(input: String, expected: String?, faultLine: Int?) throws {
        let whole = try repaired(input)
        #expect(whole.text == (expected ?? input))
        #expect(whole.faultLine == faultLine)
        for chunkSize in [1, 2, 3, 7] {
            let chunked = try repaired(input, chunkSize: chunkSize)
            #expect(asText(chunked.text) == asText(whole.text), "chunks of \(chunkSize)")
            #expect(chunked.faultLine == whole.faultLine, "chunks of \(chunkSize)")
        }
    }

    @Test func aCutOffTagIsPassedOnAtTheEnd() throws {
        #expect(try repaired("<rss><item><title>Cut in the mid").text == "<rss><item><title>Cut in the mid")
        #expect(try repaired("<rss><item><enclosure url=\"x").text == "<rss><item><enclosure url=\"x")
    }

    /// Found by `Fuzz/run.py feed-parse`: a DOCTYPE whose first `>` comes 27 KB on was held
    /// and scanned again from its start for every chunk, seconds of work in 1-byte chunks.
    @Test func longMarkupInSmallChunksIsScannedAFewTimes() throws {
        let bytes = try Array(Fixtures.data("feeds/fuzz-long-doctype-in-small-chunks.xml"))
        var repair = FeedMarkupRepair()
        var output: [UInt8] = []
        var line = 1
        func emit(_ emitted: UnsafeRawBufferPointer) {
            output += emitted
            line += emitted.filter { $0 == 0x0A }.count
        }
        for byte in bytes {
            try [byte].withUnsafeBytes { chunk in
                try repair.process(chunk, filterFault: nil, isFinal: false, lineAtEnd: line, emit: emit)
            }
        }
        try repair.process(
            UnsafeRawBufferPointer(start: nil, count: 0), filterFault: nil, isFinal: true, lineAtEnd: line, emit: emit)
        var whole = FeedMarkupRepair()
        var wholeOutput: [UInt8] = []
        try bytes.withUnsafeBytes { chunk in
            try whole.process(chunk, filterFault: nil, isFinal: true, lineAtEnd: 1) { wholeOutput += $0 }
        }
        #expect(output == wholeOutput)
        #expect(repair.scannedBytes < 4 * bytes.count)
    }

    @Test func countsLinesEightBytesAtATime() {
        let text = Array("a\nbb\n\n" + String(repeating: "x\n", count: 40) + "\u{A0}\n\u{10A}")
            .map(String.init).joined()
        Array(text.utf8).withUnsafeBytes { bytes in
            #expect(ByteSearch.newlines(in: bytes) == 44)
        }
    }
}
