import Foundation
import NIOSSL

/// Certificates made at run time with the `openssl` command for HTTPS tests: a test CA
/// and server certificates for `127.0.0.1` and `localhost` that are good, expired, for
/// another name, or self-signed.
///
/// ```swift
/// let certificates = try TestCertificates.make()
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

    /// Makes a CA and one certificate of each kind in a new temporary folder.
    public static func make() throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("singlecast-certificates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificates = TestCertificates(directory: directory)
        try certificates.create()
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

    private func create() throws {
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        let here = "subjectAltName=IP:127.0.0.1,DNS:localhost"
        try openssl(["req", "-x509"] + newKey + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Singlecast Test CA"])
        let signed: [(Kind, days: String, names: String)] = [
            (.trusted, "2", here), (.expired, "-1", here), (.wrongHost, "2", "subjectAltName=DNS:example.org"),
        ]
        for (serial, (kind, days, names)) in signed.enumerated() {
            let name = kind.rawValue
            try names.write(to: directory.appendingPathComponent(name + ".ext"), atomically: true, encoding: .utf8)
            try openssl(["req"] + newKey + ["-keyout", name + ".key", "-out", name + ".csr", "-subj", "/CN=\(name)"])
            try openssl([
                "x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "\(serial + 1)",
                "-days", days, "-extfile", name + ".ext", "-out", name + ".pem",
            ])
        }
        try openssl(
            ["req", "-x509"] + newKey
                + ["-keyout", "selfSigned.key", "-out", "selfSigned.pem", "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", here])
    }

    private func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = directory
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw OpenSSLFailure(arguments: arguments, message: String(decoding: message, as: UTF8.self))
        }
    }

    /// The `openssl` command failed.
    public struct OpenSSLFailure: Error, CustomStringConvertible {
        public var arguments: [String]
        public var message: String
        public var description: String { "openssl \(arguments.joined(separator: " ")) failed: \(message)" }
    }
}
