import Testing

@testable import SinglecastKit

@Suite struct UpdateTimerTests {
    @Test(arguments: [
        ("enabled", UpdateTimer.State.enabled),
        ("enabled-runtime", .enabled),
        ("disabled", .disabled),
        ("linked", .disabled),
        ("masked", .disabled),
        ("not-found", .notInstalled),
        ("Failed to connect to bus: No medium found", .unknown),
        ("", .unknown),
    ])
    func systemctlsAnswerIsRead(answer: String, state: UpdateTimer.State) {
        #expect(UpdateTimer.parse(answer) == state)
    }
}
