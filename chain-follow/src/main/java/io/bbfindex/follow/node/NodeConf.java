package io.bbfindex.follow.node;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A node's {@code bitcoin.conf}, read the way {@code bitcoind} and {@code bitcoin-cli} read it, for
 * what a sidecar needs: which network the node runs, where its RPC listens, how to authenticate,
 * and where it publishes ZMQ {@code sequence}. A sidecar that guessed these instead would follow
 * nothing (or another node) while answering as if it followed.
 *
 * <p>Core's rules, kept here: {@code key=value} lines, {@code #} comments; settings in a {@code
 * [main]}, {@code [test]}, {@code [testnet4]}, {@code [signet]} or {@code [regtest]} section (or
 * written {@code regtest.key=value} at the top) apply to that network only and win over the top
 * section; the network-only settings ({@code rpcport}, {@code rpcbind}, {@code port}, {@code bind})
 * of the top section apply to mainnet alone (Core warns and ignores them elsewhere); within the
 * file, the first value of a setting wins (Core's backward-compatible order); {@code
 * includeconf=FILE} (relative to the data directory) is read in place, one level deep; {@code
 * chain=NAME} or {@code regtest=1}, {@code testnet=1}, {@code testnet4=1}, {@code signet=1} choose
 * the network.
 */
public final class NodeConf {

  /** The file {@code bitcoind} reads by default: {@code <datadir>/bitcoin.conf}. */
  public static final String FILE_NAME = "bitcoin.conf";

  private static final Set<String> NETWORKS =
      Set.of("main", "test", "testnet4", "signet", "regtest");

  /** ArgsManager::NETWORK_ONLY among the settings read here: ignored at the top off mainnet. */
  private static final Set<String> NETWORK_ONLY = Set.of("rpcport", "rpcbind", "port", "bind");

  /** One {@code key=value}, with the network section it was written in ({@code ""}: the top). */
  private record Setting(String section, String key, String value) {}

  private final List<Setting> settings;
  private final @Nullable Path file;

  private NodeConf(@Nullable Path file, List<Setting> settings) {
    this.file = file;
    this.settings = List.copyOf(settings);
  }

  /** A node without a configuration file: Core's defaults everywhere. */
  public static NodeConf none() {
    return new NodeConf(null, List.of());
  }

  /**
   * Reads {@code file} and the files it includes.
   *
   * @param baseDir the node's base data directory, against which {@code includeconf} paths resolve
   * @return {@link #none()} if the file does not exist
   * @throws IOException if it exists but cannot be read, or an included file is missing
   * @throws IllegalArgumentException on a line Core would refuse (the message names file and line)
   */
  public static NodeConf read(Path file, Path baseDir) throws IOException {
    List<Setting> out = new ArrayList<>();
    List<String> includes = new ArrayList<>();
    try {
      parse(file, Files.readAllLines(file, StandardCharsets.UTF_8), out, includes);
    } catch (NoSuchFileException e) {
      return none();
    }
    for (String include : includes) {
      Path included = baseDir.resolve(include);
      List<String> nested = new ArrayList<>();
      try {
        parse(included, Files.readAllLines(included, StandardCharsets.UTF_8), out, nested);
      } catch (NoSuchFileException e) {
        NoSuchFileException missing =
            new NoSuchFileException(
                included.toString(), null, "included by includeconf in " + file + " but missing");
        missing.initCause(e);
        throw missing;
      }
      // Core reads includes one level deep and ignores (with a warning) those of included files.
    }
    return new NodeConf(file, out);
  }

  private static void parse(
      Path file, List<String> lines, List<Setting> out, List<String> includes) {
    String section = "";
    int n = 0;
    for (String raw : lines) {
      n++;
      String line = stripComment(raw).strip();
      if (line.isEmpty()) {
        continue;
      }
      if (line.startsWith("[") && line.endsWith("]")) {
        section = line.substring(1, line.length() - 1).strip();
        continue;
      }
      int eq = line.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException(
            file + " line " + n + ": '" + line + "' is not key=value (as bitcoind also refuses)");
      }
      String key = line.substring(0, eq).strip();
      String value = line.substring(eq + 1).strip();
      if (key.startsWith("-")) {
        throw new IllegalArgumentException(
            file + " line " + n + ": '" + key + "': options in bitcoin.conf have no leading '-'");
      }
      String where = section;
      int dot = key.indexOf('.');
      if (dot > 0 && section.isEmpty() && NETWORKS.contains(key.substring(0, dot))) {
        where = key.substring(0, dot); // regtest.rpcport=... at the top
        key = key.substring(dot + 1);
      }
      if (key.equals("includeconf")) {
        includes.add(value);
        continue;
      }
      out.add(new Setting(where, key, value));
    }
  }

  private static String stripComment(String line) {
    int hash = line.indexOf('#');
    return hash < 0 ? line : line.substring(0, hash);
  }

  /** The file read, if there was one. */
  public Optional<Path> file() {
    return Optional.ofNullable(file);
  }

  /**
   * The network the file selects, as {@code getblockchaininfo} names it: {@code chain=}, else the
   * first of {@code regtest=1}, {@code testnet4=1}, {@code signet=1}, {@code testnet=1}, else main.
   */
  public String chain() {
    Optional<String> chain = top("chain");
    if (chain.isPresent()) {
      String c = chain.get().toLowerCase(Locale.ROOT);
      if (!NETWORKS.contains(c)) {
        throw new IllegalArgumentException(
            file + ": chain=" + chain.get() + " is not one of " + NETWORKS);
      }
      return c;
    }
    if (isTrue(top("regtest"))) {
      return "regtest";
    }
    if (isTrue(top("testnet4"))) {
      return "testnet4";
    }
    if (isTrue(top("signet"))) {
      return "signet";
    }
    if (isTrue(top("testnet"))) {
      return "test";
    }
    return "main";
  }

  /**
   * The value of {@code key} for {@code chain}: its network section first, then the top section
   * (except a network-only setting off mainnet); the first value written wins.
   */
  public Optional<String> get(String chain, String key) {
    Optional<String> own = first(chain, key);
    if (own.isPresent() || (NETWORK_ONLY.contains(key) && !chain.equals("main"))) {
      return own;
    }
    return top(key);
  }

  private Optional<String> top(String key) {
    return first("", key);
  }

  private Optional<String> first(String section, String key) {
    return settings.stream()
        .filter(s -> s.section().equals(section) && s.key().equals(key))
        .map(Setting::value)
        .findFirst();
  }

  private static boolean isTrue(Optional<String> value) {
    return value.isPresent() && !value.get().equals("0"); // Core: an empty value is true
  }

  /** The subdirectory of the base data directory a network keeps its data in. */
  public static String networkSubdir(String chain) {
    return switch (chain) {
      case "main" -> "";
      case "test" -> "testnet3";
      case "testnet4" -> "testnet4";
      case "signet" -> "signet";
      case "regtest" -> "regtest";
      default -> throw new IllegalArgumentException("unknown network: " + chain);
    };
  }

  /** The network whose data a subdirectory named {@code name} holds, if it is one. */
  public static Optional<String> chainOfSubdir(String name) {
    return switch (name) {
      case "testnet3" -> Optional.of("test");
      case "testnet4", "signet", "regtest" -> Optional.of(name);
      default -> Optional.empty();
    };
  }
}
