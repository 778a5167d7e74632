import Testing

@testable import singlecast

@Suite struct FormatTests {
    @Test(arguments: [
        (Int64(0), "0 B"), (512, "512 B"), (999, "999 B"), (1000, "1.0 kB"), (1049, "1.0 kB"), (1050, "1.1 kB"),
        (1250, "1.3 kB"), (9949, "9.9 kB"), (9950, "10.0 kB"), (9999, "10.0 kB"), (10_499, "10 kB"), (10_500, "11 kB"),
        (950_000, "950 kB"), (999_999, "1000 kB"), (2_500_000, "2.5 MB"), (12_345_678, "12 MB"),
        (3_200_000_000, "3.2 GB"), (1_000_000_000_000_000, "1000 TB"),
    ])
    func bytesAreDecimalUnitsWithOneDecimalBelowTen(count: Int64, text: String) {
        #expect(Format.bytes(count) == text)
    }
}
