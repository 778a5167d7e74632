import Foundation
import Testing

@testable import SinglecastKit

@Suite struct FileNameTemplateTests {
    static let episode = Episode(
        title: "Café / Résumé", guid: "guid-1", published: Date(timeIntervalSince1970: 1_720_000_000),
        enclosure: Enclosure(url: "http://h/e.mp3?token=1", type: "audio/mpeg"))

    static func request(template: String) throws -> (EpisodesFolder, DownloadRequest) {
        let folder = EpisodesFolder(root: URL(fileURLWithPath: "/podcasts"), template: try FileNameTemplate(template))
        return (folder, DownloadRequest(podcastTitle: "Show: One", episode: episode, enclosure: episode.enclosure!))
    }

    @Test func theStandardTemplateNamesFilesAsSinglecastAlwaysHas() throws {
        let (folder, request) = try Self.request(template: "{podcast}/{title}")
        #expect(folder.folder(forPodcast: "Show: One").path == "/podcasts/Show: One")
        #expect(folder.reserveName(for: request, inUse: [], present: []) == "Café - Résumé.mp3")
        #expect(folder == EpisodesFolder(root: URL(fileURLWithPath: "/podcasts"), template: .standard))
    }

    @Test func everyPlaceholderIsFilledAndTheNameMadeSafe() throws {
        let (folder, request) = try Self.request(template: "Podcasts/{podcast}/{date} {title} {guid-hash}")
        #expect(folder.folder(forPodcast: "Show: One").path == "/podcasts/Podcasts/Show: One")
        let hash = FileNaming.stableHash("guid-1")
        #expect(folder.reserveName(for: request, inUse: [], present: []) == "2024-07-03 Café - Résumé \(hash).mp3")
    }

    @Test func aMissingDateLeavesNoGap() throws {
        let folder = EpisodesFolder(root: URL(fileURLWithPath: "/p"), template: try FileNameTemplate("{podcast}/{date} {title}"))
        let undated = Episode(title: "Undated", enclosure: Enclosure(url: "http://h/u.mp3", type: "audio/mpeg"))
        let request = DownloadRequest(podcastTitle: "Show", episode: undated, enclosure: undated.enclosure!)
        #expect(folder.reserveName(for: request, inUse: [], present: []) == "Undated.mp3")
    }

    @Test(arguments: [
        ("{podcast}/{titel}", FileNameTemplate.Problem.unknownPlaceholder("titel")),
        ("{podcast}/{title", .unbalancedBrace),
        ("{podcast}/title}", .unbalancedBrace),
        ("{podcast}//{title}", .emptyPart),
        ("{podcast}/{title}/", .emptyPart),
        ("{podcast}/{date}/{title}", .episodePlaceholderInFolder(.date)),
    ])
    func aTemplateThatCannotBeUsedIsRefused(text: String, problem: FileNameTemplate.Problem) {
        #expect(throws: problem) { try FileNameTemplate(text) }
    }
}
