import Foundation

/// An error that is none of the library's failure values, as it describes itself (a Foundation
/// error's own text, else its `description`): the detail of an `unexpected` failure.
func describing(_ error: any Error) -> String {
    (error as? any LocalizedError)?.errorDescription ?? "\(error)"
}
