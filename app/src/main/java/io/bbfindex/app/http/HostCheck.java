package io.bbfindex.app.http;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.NetUtil;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Refuses a request whose {@code Host} names a host this server was not told it is: 421 {@code
 * host_not_allowed}, and the request goes no further. Allowed: any IP literal, {@code localhost}
 * and names under {@code .localhost}, the names of {@code --allowed-hosts}, and requests without a
 * {@code Host} (no browser sends one without it).
 *
 * <p>WHY: DNS rebinding. A web page of {@code evil.example} can make its name resolve to 127.0.0.1
 * and then read a loopback server as if it were its own origin (and, with {@code --esplora-relay},
 * make it broadcast), CORS or not: the browser sees one origin. What it cannot change is the {@code
 * Host} it sends, which stays {@code evil.example}. An IP literal can never be rebound (the page's
 * origin then is the server itself), so the check only has to know the names the server is reached
 * by. The port is not compared: rebinding works on any port alike.
 */
@Sharable
final class HostCheck extends ChannelInboundHandlerAdapter {
  /** A DNS name: labels of letters, digits and hyphens, separated by dots. */
  private static final Pattern HOST_NAME =
      Pattern.compile(
          "(?i)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*");

  private final Set<String> names;
  private final boolean anyName;

  /**
   * @param allowed host names allowed besides IP literals and {@code localhost} names; {@code *}
   *     for any
   */
  HostCheck(List<String> allowed) {
    this.anyName = allowed.contains("*");
    this.names =
        allowed.stream()
            .map(n -> n.toLowerCase(Locale.ROOT))
            .collect(Collectors.toUnmodifiableSet());
  }

  /** Whether {@code s} is a host name {@code --allowed-hosts} may list ({@code *} too). */
  static boolean isHostName(String s) {
    return s.equals("*") || HOST_NAME.matcher(s).matches();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof FullHttpRequest request)) {
      ctx.fireChannelRead(msg);
      return;
    }
    String host = request.headers().get(HttpHeaderNames.HOST);
    if (host == null || allows(host)) {
      ctx.fireChannelRead(msg);
      return;
    }
    try {
      Replies.answer(
          ctx,
          request,
          ApiHandler.error(
              new ApiError(
                  HttpResponseStatus.MISDIRECTED_REQUEST,
                  "host_not_allowed",
                  "this server does not answer to the host name in the Host header; an operator"
                      + " adds it with serve --allowed-hosts")));
    } finally {
      request.release();
    }
  }

  /** Whether the {@code Host} value (with or without a port) names an allowed host. */
  boolean allows(String hostHeader) {
    String host = hostOf(hostHeader.strip()).toLowerCase(Locale.ROOT);
    if (host.endsWith(".")) {
      host = host.substring(0, host.length() - 1); // "localhost." is localhost
    }
    if (NetUtil.isValidIpV4Address(host) || NetUtil.isValidIpV6Address(host)) {
      return true;
    }
    return host.equals("localhost")
        || host.endsWith(".localhost")
        || anyName
        || names.contains(host);
  }

  /** The host of a {@code Host} value: {@code [v6]:port}, {@code name:port} or either alone. */
  private static String hostOf(String value) {
    if (value.startsWith("[")) {
      int end = value.indexOf(']');
      return end < 0 ? value : value.substring(1, end);
    }
    int colon = value.indexOf(':');
    return colon < 0 || value.indexOf(':', colon + 1) >= 0 ? value : value.substring(0, colon);
  }
}
