package io.bbfindex.follow.node;

import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * How to reach a node, resolved as {@code bitcoin-cli} resolves it: what the command line gives
 * first, then the node's {@code bitcoin.conf} ({@link NodeConf}), then Core's defaults.
 *
 * <ul>
 *   <li>RPC address: {@code --rpc URL}; else {@code rpcconnect} (host, optionally {@code :port}),
 *       else the first {@code rpcbind} that is not a wildcard, else 127.0.0.1; the port from {@code
 *       rpcport}, else the one in that address, else the network's default.
 *   <li>Credentials: {@code --rpc-user}/{@code --rpc-password}; else {@code --rpc-cookie}; else
 *       {@code rpcuser}/{@code rpcpassword} of the file (with them Core writes no cookie); else the
 *       cookie file, {@code rpccookiefile} (relative to the network's data directory) or {@code
 *       .cookie} there.
 *   <li>ZMQ: {@code --zmq}; else {@code zmqpubsequence} of the file; else {@code null} (the
 *       follower asks {@code getzmqnotifications}).
 * </ul>
 *
 * @param rpc the RPC endpoint, {@code http://host:port/}
 * @param zmq the {@code sequence} endpoint, {@link io.bbfindex.follow.FollowConfig#NO_ZMQ}, or
 *     {@code null} to discover it
 * @param from where the RPC address came from, for the start-up line (e.g. {@code rpcport in
 *     /home/u/.bitcoin/bitcoin.conf})
 */
public record NodeAccess(URI rpc, RpcCredentials credentials, @Nullable String zmq, String from) {

  /** What the command line says; {@code null} where it says nothing. */
  public record Flags(
      @Nullable String rpc,
      @Nullable Path cookie,
      @Nullable String user,
      @Nullable String password,
      @Nullable String zmq) {}

  /**
   * @param netDir the network's data directory ({@code ~/.bitcoin/regtest} for regtest)
   * @param chain the network, as {@code getblockchaininfo} names it
   */
  public static NodeAccess resolve(Path netDir, String chain, NodeConf conf, Flags flags) {
    String confName = conf.file().map(Path::toString).orElse(NodeConf.FILE_NAME);
    URI rpc;
    String from;
    if (flags.rpc() != null) {
      rpc = URI.create(flags.rpc().endsWith("/") ? flags.rpc() : flags.rpc() + "/");
      from = "--rpc";
    } else {
      Optional<String> connect = conf.get(chain, "rpcconnect");
      Optional<String> bind = conf.get(chain, "rpcbind").filter(b -> !isWildcard(host(b)));
      Optional<String> address = connect.isPresent() ? connect : bind;
      Optional<String> port = conf.get(chain, "rpcport");
      String host = address.map(NodeAccess::host).orElse("127.0.0.1");
      int p =
          port.map(NodeAccess::parsePort)
              .or(() -> address.flatMap(NodeAccess::portOf))
              .orElse(NodeRpc.defaultPort(chain));
      rpc = URI.create("http://" + bracketed(host) + ":" + p + "/");
      from =
          port.isPresent()
              ? "rpcport in " + confName
              : address.isPresent()
                  ? (connect.isPresent() ? "rpcconnect" : "rpcbind") + " in " + confName
                  : "the " + chain + " network's default port";
    }
    RpcCredentials credentials;
    if (flags.user() != null) {
      if (flags.password() == null) {
        throw new IllegalArgumentException(
            "--rpc-user "
                + flags.user()
                + " has no password: give --rpc-password-file, --rpc-password or"
                + " $BBF_RPC_PASSWORD");
      }
      credentials = new RpcCredentials.UserPassword(flags.user(), flags.password());
    } else if (flags.cookie() != null) {
      credentials = new RpcCredentials.Cookie(flags.cookie());
    } else if (conf.get(chain, "rpcpassword").isPresent()) {
      credentials =
          new RpcCredentials.UserPassword(
              conf.get(chain, "rpcuser").orElse(""), conf.get(chain, "rpcpassword").get());
    } else {
      credentials =
          new RpcCredentials.Cookie(
              netDir.resolve(conf.get(chain, "rpccookiefile").orElse(".cookie")));
    }
    String zmq = flags.zmq() != null ? flags.zmq() : conf.get(chain, "zmqpubsequence").orElse(null);
    return new NodeAccess(rpc, credentials, zmq, from);
  }

  /** The host of {@code host}, {@code host:port}, {@code [v6]} or {@code [v6]:port}. */
  static String host(String address) {
    if (address.startsWith("[")) {
      int close = address.indexOf(']');
      return close < 0 ? address : address.substring(1, close);
    }
    int colon = address.indexOf(':');
    return colon >= 0 && colon == address.lastIndexOf(':') ? address.substring(0, colon) : address;
  }

  private static Optional<Integer> portOf(String address) {
    int colon = address.lastIndexOf(':');
    boolean hasPort =
        address.startsWith("[")
            ? address.indexOf("]:") > 0
            : colon >= 0 && colon == address.indexOf(':');
    return hasPort ? Optional.of(parsePort(address.substring(colon + 1))) : Optional.empty();
  }

  private static int parsePort(String port) {
    try {
      int p = Integer.parseInt(port.strip());
      if (p < 1 || p > 65_535) {
        throw new NumberFormatException();
      }
      return p;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "'" + port + "' is not a TCP port (in the node's RPC address)", e);
    }
  }

  private static boolean isWildcard(String host) {
    return host.equals("0.0.0.0") || host.equals("::") || host.isEmpty();
  }

  private static String bracketed(String host) {
    return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
  }
}
