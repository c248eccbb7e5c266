package io.bbfindex.app.workdir;

import io.bbfindex.follow.node.NodeConf;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Where a node keeps its data, from the {@code --datadir} a user gives, and where bbf-index keeps
 * the filter store of it by default.
 *
 * <p>Like {@code bitcoind -datadir}, the directory given is the node's base directory ({@code
 * ~/.bitcoin}), whose {@code bitcoin.conf} says the network; a test network's data is in its
 * subdirectory ({@code ~/.bitcoin/regtest}). A network's own directory ({@code ~/.bitcoin/regtest})
 * is taken as well, as before: its name says the network, and the configuration is one level up.
 *
 * @param netDir the network's data directory: the one holding {@code blocks/}
 * @param baseDir the directory holding {@code bitcoin.conf} and the network subdirectories
 * @param chain the network, as {@code getblockchaininfo} names it
 * @param conf the node's configuration ({@link NodeConf#none()} without a file)
 */
public record NodeDirectories(Path netDir, Path baseDir, String chain, NodeConf conf) {

  /**
   * @param given the {@code --datadir} given
   * @param confFile {@code --conf}, or {@code null} for {@code bitcoin.conf} in the base directory
   * @throws IllegalArgumentException if the directory holds no {@code blocks/} for its network (the
   *     message says where it looked and why)
   * @throws IOException if the configuration cannot be read
   */
  public static NodeDirectories resolve(Path given, @Nullable Path confFile) throws IOException {
    Path dir = given.toAbsolutePath().normalize();
    Path named = dir.getFileName();
    Optional<String> byName =
        named == null ? Optional.empty() : NodeConf.chainOfSubdir(named.toString());
    if (byName.isPresent() && Files.isDirectory(dir.resolve("blocks")) && dir.getParent() != null) {
      Path base = dir.getParent();
      NodeConf conf =
          NodeConf.read(confFile != null ? confFile : base.resolve(NodeConf.FILE_NAME), base);
      return new NodeDirectories(dir, base, byName.get(), conf);
    }
    NodeConf conf =
        NodeConf.read(confFile != null ? confFile : dir.resolve(NodeConf.FILE_NAME), dir);
    String chain = conf.chain();
    String sub = NodeConf.networkSubdir(chain);
    Path netDir = sub.isEmpty() ? dir : dir.resolve(sub);
    if (!Files.isDirectory(netDir.resolve("blocks"))) {
      String why =
          conf.file().isPresent() && !sub.isEmpty()
              ? " ("
                  + conf.file().get()
                  + " selects "
                  + chain
                  + ", whose data is in "
                  + netDir
                  + ")"
              : "";
      throw new IllegalArgumentException(
          "--datadir "
              + given
              + ": no blocks/ folder in "
              + netDir
              + why
              + "; pass the node's data directory, e.g. ~/.bitcoin (its bitcoin.conf says the"
              + " network) or ~/.bitcoin/regtest");
    }
    return new NodeDirectories(netDir, dir, chain, conf);
  }

  /**
   * The filter store used when none is named: outside the node's directories, one per network data
   * directory, {@code $XDG_DATA_HOME/bbf-index/<network>-<first 12 hex digits of the SHA-256 of its
   * absolute path>} ({@code ~/.local/share} without {@code XDG_DATA_HOME}). The same directory is
   * found by {@code ingest} and by {@code serve}, by any working directory.
   */
  public Path defaultStore(Map<String, String> env) {
    String xdg = env.get("XDG_DATA_HOME");
    Path dataHome =
        xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()
            ? Path.of(xdg)
            : Path.of(env.getOrDefault("HOME", System.getProperty("user.home")), ".local", "share");
    return dataHome.resolve("bbf-index").resolve(chain + "-" + shortHash(netDir.toString()));
  }

  private static String shortHash(String path) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(path.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 6);
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("every JDK has SHA-256", e);
    }
  }
}
