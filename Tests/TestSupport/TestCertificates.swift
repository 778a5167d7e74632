import Foundation
import NIOSSL

/// Certificates made at run time with the `openssl` command for HTTPS tests: a test CA
/// and server certificates for `127.0.0.1` and `localhost` that are good, expired, for
/// another name, or self-signed.
///
/// ```swift
/// let certificates = try await TestCertificates.make()
/// let server = try await TestServer.start(tls: try certificates.serverContext(.trusted))
/// // … trust certificates.caFile (SSL_CERT_FILE) and request server.url("/feed.xml") …
/// ```
public struct TestCertificates: Sendable {
    /// A server certificate.
    public enum Kind: String, Sendable, CaseIterable {
        /// Signed by the test CA for 127.0.0.1 and localhost.
        case trusted
        /// Signed by the test CA for 127.0.0.1 and localhost, expired yesterday.
        case expired
        /// Signed by the test CA for example.org only.
        case wrongHost
        /// For 127.0.0.1 and localhost, signed by itself.
        case selfSigned
    }

    /// The folder holding the files; remove it with ``remove()``.
    public let directory: URL

    /// The PEM file of the test CA's certificate.
    public var caFile: String { directory.appendingPathComponent("ca.pem").path }

    /// A folder holding only the test CA's certificate, under its hash name (`openssl rehash`).
    public var caDirectory: String { directory.appendingPathComponent("roots").path }

    /// Makes a CA and one certificate of each kind in a new temporary folder.
    public static func make() async throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("singlecast-certificates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificates = TestCertificates(directory: directory)
        try await certificates.create()
        return certificates
    }

    /// A server TLS context presenting the certificate of `kind`.
    public func serverContext(_ kind: Kind) throws -> NIOSSLContext {
        let path = directory.appendingPathComponent(kind.rawValue).path
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(path + ".pem").map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: path + ".key", format: .pem)))
        return try NIOSSLContext(configuration: configuration)
    }

    /// Deletes the folder.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    private func create() async throws {
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        let here = "subjectAltName=IP:127.0.0.1,DNS:localhost"
        try await openssl(["req", "-x509"] + newKey + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Singlecast Test CA"])
        try FileManager.default.createDirectory(atPath: caDirectory, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: caFile, toPath: caDirectory + "/ca.pem")
        try await openssl(["rehash", "roots"])
        let signed: [(Kind, days: String, names: String)] = [
            (.trusted, "2", here), (.expired, "-1", here), (.wrongHost, "2", "subjectAltName=DNS:example.org"),
        ]
        for (serial, (kind, days, names)) in signed.enumerated() {
            let name = kind.rawValue
            try names.write(to: directory.appendingPathComponent(name + ".ext"), atomically: true, encoding: .utf8)
            try await openssl(["req"] + newKey + ["-keyout", name + ".key", "-out", name + ".csr", "-subj", "/CN=\(name)"])
            try await openssl([
                "x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "\(serial + 1)",
                "-days", days, "-extfile", name + ".ext", "-out", name + ".pem",
            ])
        }
        try await openssl(
            ["req", "-x509"] + newKey
                + ["-keyout", "selfSigned.key", "-out", "selfSigned.pem", "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", here])
    }

    /// Runs `openssl` in the folder, waiting without holding a thread of the cooperative pool.
    private func openssl(_ arguments: [String]) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = directory
        let errors = directory.appendingPathComponent("openssl.err")
        try Data().write(to: errors)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errors)
        let status = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        guard status == 0 else {
            throw OpenSSLFailure(arguments: arguments, message: (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
        }
    }

    /// The `openssl` command failed.
    public struct OpenSSLFailure: Error, CustomStringConvertible {
        public var arguments: [String]
        public var message: String
        public var description: String { "openssl \(arguments.joined(separator: " ")) failed: \(message)" }
    }
}
