import Foundation
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a host could not be reached, as the system or SwiftNIO reported it: kept as a value from
/// where it is thrown to where retries are decided (``RetryReason/init(_:)``); the executable
/// words it. A new wording in NIO or async-http-client changes nothing.
public enum NetworkCause: Equatable, Hashable, Sendable {
    /// A system call failed with this `errno` (`ECONNREFUSED`, `ECONNRESET`, `ENETUNREACH`, …).
    case system(errno: Int32)
    /// The host name did not resolve: `getaddrinfo`'s `EAI_*` code (`EAI_NONAME`, `EAI_AGAIN`, …).
    case nameResolution(code: Int32)
    /// Anything else, described (for messages only: nothing is decided on it).
    case other(String)

    /// The cause behind an error thrown by SwiftNIO while connecting or reading: an `IOError`'s
    /// errno, a failed name lookup, the first failed attempt of a connection; nil when the error
    /// is none of these.
    static func of(_ error: any Error) -> NetworkCause? {
        if let ioError = error as? IOError { return .system(errno: ioError.errnoCode) }
        if let unknownHost = error as? SocketAddressError.UnknownHost {
            return .nameResolution(code: Int32(truncatingIfNeeded: unknownHost.errorCode))
        }
        if let connectError = error as? NIOConnectionError {
            if let first = connectError.connectionErrors.first { return of(first.error) ?? .other("\(first.error)") }
            if let lookup = connectError.dnsAError ?? connectError.dnsAAAAError {
                return of(lookup) ?? .nameResolution(code: EAI_NONAME)
            }
            return nil
        }
        return nil
    }
}

extension RetryReason {
    /// The reason a host that could not be reached gives for waiting, decided on the typed cause.
    public init(_ cause: NetworkCause) {
        switch cause {
        case .nameResolution: self = .hostNotFound
        case .system(let code):
            switch code {
            case ECONNREFUSED: self = .connectionRefused
            case ECONNRESET, ECONNABORTED, EPIPE, ENOTCONN: self = .connectionLost
            case ETIMEDOUT: self = .connectTimeout
            default: self = .unreachable
            }
        case .other: self = .unreachable
        }
    }
}
