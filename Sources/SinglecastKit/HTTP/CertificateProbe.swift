import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// BoringSSL reports every failed certificate verification alike; to tell an expired
/// certificate from an untrusted one, this connects again without verifying and reads the dates.
enum CertificateProbe {
    /// `error` itself, or an expired-certificate error when that is what stands behind
    /// a certificate reported as not trusted.
    static func refine(_ error: any Error, timeout: Duration) async -> any Error {
        guard let httpError = error as? HTTPError, httpError.reason == .certificateNotTrusted,
            let certificate = try? await peerCertificate(of: httpError.url, timeout: timeout)
        else { return error }
        let now = time(nil)
        guard certificate.notValidAfter < now || certificate.notValidBefore > now else { return error }
        return HTTPError(.certificateExpired, url: httpError.url)
    }

    /// The certificate the server at `url` presents, read without verifying it; connecting
    /// and the handshake each get `timeout`.
    private static func peerCertificate(of url: URL, timeout: Duration) async throws -> NIOSSLCertificate? {
        guard let host = url.host(percentEncoded: false) else { return nil }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        tls.trustRoots = .certificates([])  // nothing is verified: spare reading the system's
        let context = try NIOSSLContext(configuration: tls)
        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let handshake = eventLoop.makePromise(of: Void.self)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: eventLoop)
                .connectTimeout(TimeAmount(timeout))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let handler = try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host)
                        try channel.pipeline.syncOperations.addHandlers(handler, HandshakeWaiter(handshake))
                    }
                }
                .connect(host: host, port: url.port ?? 443)
                .get()
        } catch {
            handshake.fail(error)
            throw error
        }
        let deadline = eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            handshake.fail(ChannelError.connectTimeout(TimeAmount(timeout)))
        }
        defer {
            deadline.cancel()
            channel.close(promise: nil)
        }
        try await handshake.futureResult.get()
        return try await channel.nioSSL_peerCertificate().get()
    }

    /// Completes `done` when the handshake completes or the connection fails or closes.
    private final class HandshakeWaiter: ChannelInboundHandler {
        typealias InboundIn = NIOAny
        let done: EventLoopPromise<Void>

        init(_ done: EventLoopPromise<Void>) { self.done = done }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case TLSUserEvent.handshakeCompleted = event { done.succeed() }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            done.fail(error)
        }

        func channelInactive(context: ChannelHandlerContext) {
            done.fail(ChannelError.eof)
            context.fireChannelInactive()
        }
    }
}
