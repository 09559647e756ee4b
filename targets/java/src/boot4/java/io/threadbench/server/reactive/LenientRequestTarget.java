package io.threadbench.server.reactive;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpRequest;
import reactor.netty.NettyPipeline;
import reactor.netty.http.server.HttpServer;

import org.springframework.boot.reactor.netty.NettyServerCustomizer;

/**
 * LenientRequestTarget lets a request target that java.net.URI refuses reach
 * the handlers, so that a bad parameter such as {@code duration=%zz} gets the
 * contract's 400 body, as in the servlet models. Spring builds each reactive
 * request's URI with java.net.URI and answers a bodiless 400 itself when that
 * fails, before any handler or error handler runs. This escapes, in Netty's
 * pipeline right after the HTTP codec, each '%' that starts no escape and
 * each character URI refuses: the parameter then reads back as sent
 * ({@code "%zz"}), and a well-formed target is left as it is.
 */
final class LenientRequestTarget implements NettyServerCustomizer {

    private static final String HANDLER_NAME = "threadbench.lenientRequestTarget";

    /** REFUSED are the printable ASCII characters java.net.URI refuses in a path or query. */
    private static final String REFUSED = "\"<>\\^`{|}";

    private static final ChannelHandler ESCAPER = new Escaper();

    @Override
    public HttpServer apply(HttpServer server) {
        return server.doOnChannelInit((observer, channel, address) -> {
            ChannelPipeline pipeline = channel.pipeline();
            if (pipeline.get(NettyPipeline.HttpCodec) != null) { // HTTP/1.1, the contract's protocol
                pipeline.addAfter(NettyPipeline.HttpCodec, HANDLER_NAME, ESCAPER);
            }
        });
    }

    /**
     * escape percent-encodes, in {@code target}, each '%' not followed by two
     * hex digits and each character URI refuses: controls, REFUSED, and the
     * bytes above ASCII (Netty reads the request line a byte per character).
     */
    static String escape(String target) {
        StringBuilder escaped = null;
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            boolean refused = refused(target, i);
            if (refused && escaped == null) {
                escaped = new StringBuilder(target.length() + 8).append(target, 0, i);
            }
            if (refused) {
                escaped.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            } else if (escaped != null) {
                escaped.append(c);
            }
        }
        return escaped == null ? target : escaped.toString();
    }

    private static boolean refused(String target, int i) {
        char c = target.charAt(i);
        if (c == '%') {
            return !startsEscape(target, i);
        }
        return c <= ' ' || (c >= 0x7f && c <= 0xff) || REFUSED.indexOf(c) >= 0;
    }

    private static boolean startsEscape(String s, int i) {
        return i + 2 < s.length() && Character.digit(s.charAt(i + 1), 16) >= 0 && Character.digit(s.charAt(i + 2), 16) >= 0;
    }

    /** Escaper rewrites each request's target as it is decoded; it holds no state, so one serves every channel. */
    @ChannelHandler.Sharable
    private static final class Escaper extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest request) {
                request.setUri(escape(request.uri()));
            }
            ctx.fireChannelRead(msg);
        }
    }
}
