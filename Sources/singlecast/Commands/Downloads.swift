import ArgumentParser
import Foundation
import SinglecastKit

extension Singlecast {
    struct Downloads: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List every download in the progress buffer, with its state and progress."
        )

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print the downloads as JSON.")
        var json = false

        func run() async throws {
            let library = try global.openLibrary()
            _ = try global.progressBuffer(library)
            let downloads = try library.downloads()
            if json {
                try printJSON(downloads.map(DownloadJSON.init))
            } else if downloads.isEmpty {
                print("Nothing has been downloaded yet.")
            } else {
                print(DownloadTable.render(downloads))
            }
        }
    }
}

/// The `--json` shape of a download.
struct DownloadJSON: Encodable {
    var id: Int64
    var podcast: String
    var title: String
    var url: String
    var state: DownloadState
    var receivedBytes: Int64
    var expectedBytes: Int64?
    var progress: Double?
    var file: String
    var message: String?

    init(_ record: DownloadRecord) {
        id = record.id ?? 0
        podcast = record.podcastTitle
        title = record.episodeTitle
        url = record.enclosureURL
        state = record.state
        receivedBytes = record.receivedBytes
        expectedBytes = record.expectedBytes
        progress = record.fractionCompleted
        file = record.file
        message = record.message
    }
}

/// The table `singlecast downloads` prints.
enum DownloadTable {
    static func render(_ downloads: [DownloadRecord]) -> String {
        var table = TextTable(headers: ["ID", "State", "Progress", "Size", "Episode", "File"], rightAligned: [0, 2, 3])
        for record in downloads {
            table.rows.append([
                String(record.id ?? 0),
                record.state.rawValue,
                record.fractionCompleted.map { "\(Int($0 * 100))%" } ?? Format.bytes(record.receivedBytes),
                record.expectedBytes.map(Format.bytes) ?? "",
                SearchTable.truncate("\(record.podcastTitle): \(record.episodeTitle)", 60),
                record.file,
            ])
        }
        return table.render()
    }
}
