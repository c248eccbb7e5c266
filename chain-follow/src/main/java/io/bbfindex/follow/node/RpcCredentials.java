package io.bbfindex.follow.node;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

/**
 * How the follower authenticates to the node's JSON-RPC: the node's cookie file (the default; Core
 * rewrites it at every start, so it is read again whenever the node refuses the old one) or a fixed
 * user and password.
 */
public sealed interface RpcCredentials {

  /** The {@code Authorization} header value. @throws IOException if the cookie cannot be read */
  String basicHeader() throws IOException;

  /** The cookie file {@code <datadir>[/<network>]/.cookie}, holding {@code __cookie__:<hex>}. */
  record Cookie(Path file) implements RpcCredentials {
    @Override
    public String basicHeader() throws IOException {
      String userPass = Files.readString(file, StandardCharsets.UTF_8).strip();
      return basic(userPass);
    }
  }

  /** {@code -rpcuser}/{@code -rpcpassword} or an {@code -rpcauth} pair. */
  record UserPassword(String user, String password) implements RpcCredentials {
    @Override
    public String basicHeader() {
      return basic(user + ":" + password);
    }

    @Override
    public String toString() {
      return "UserPassword[" + user + ", ***]";
    }
  }

  private static String basic(String userPass) {
    return "Basic " + Base64.getEncoder().encodeToString(userPass.getBytes(StandardCharsets.UTF_8));
  }
}
