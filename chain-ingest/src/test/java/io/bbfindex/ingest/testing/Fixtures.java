package io.bbfindex.ingest.testing;

import io.bbfindex.ingest.archive.ArchiveExtractor;
import io.bbfindex.ingest.encoding.HashKeys;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * The real Bitcoin Core data directories under the repository's {@code fixtures/} folder (path from
 * the {@code bbf.fixtures} system property, set by surefire): extraction of the archives (each
 * holds one top directory named like the archive, with the datadir directly in it or in {@code
 * regtest/}) and their ground-truth txindex tables.
 */
public final class Fixtures {

  /** The four archives, with where the datadir sits inside the extracted top directory. */
  public enum Archive {
    MAINNET_LDB("core-0.21.1-mainnet-0-599-txindex-ldb", ""),
    MAINNET_LEGACY("core-0.16.0-mainnet-0-599-txindex-legacy", ""),
    REGTEST_B("core-0.21.1-regtest-txindex-B", "regtest"),
    REGTEST_MULTIFILE("core-0.21.1-regtest-txindex-multifile-compact", "regtest");

    public final String baseName;

    /** Sub-path of the datadir inside the archive's top directory ("" = the top directory). */
    public final String datadirSubpath;

    Archive(String baseName, String datadirSubpath) {
      this.baseName = baseName;
      this.datadirSubpath = datadirSubpath;
    }
  }

  /** One row of a {@code *.txindex.tsv}: txid (display hex), nFile, nPos, nTxOffset, abs_offset. */
  public record TxRow(
      String txidHex, byte[] txidInternal, int file, long pos, long txOffset, long absOffset) {}

  private Fixtures() {}

  public static Path dir() {
    String p = System.getProperty("bbf.fixtures");
    if (p == null) {
      throw new IllegalStateException(
          "system property bbf.fixtures is not set (surefire sets it to the repo's fixtures/)");
    }
    Path d = Path.of(p);
    if (!Files.isDirectory(d)) {
      throw new IllegalStateException("bbf.fixtures=" + p + " is not a directory");
    }
    return d;
  }

  /** The archive file of {@code a}: {@code fixtures/NAME.tar.gz}. */
  public static Path archive(Archive a) {
    return dir().resolve(a.baseName + ".tar.gz");
  }

  /**
   * Extracts {@code a} into {@code into} (through the product's {@link ArchiveExtractor}, as the
   * embedded demo is extracted) and returns the datadir (the path NodeIndex.open wants).
   */
  public static Path extract(Archive a, Path into) throws IOException {
    ArchiveExtractor.extractTarGz(archive(a), into, 0);
    Path top = into.resolve(a.baseName);
    return a.datadirSubpath.isEmpty() ? top : top.resolve(a.datadirSubpath);
  }

  /**
   * Extracts the archive {@code fixtures/NAME.tar.gz} of any fixture (the 31.99 ones included) into
   * {@code into} and returns its data directory: the folder that holds {@code blocks/} (the archive
   * root for mainnet, its {@code regtest/} for regtest).
   */
  public static Path extract(String name, Path into) throws IOException {
    ArchiveExtractor.extractTarGz(dir().resolve(name + ".tar.gz"), into, 0);
    Path root = into.resolve(name);
    for (Path datadir : new Path[] {root, root.resolve("regtest")}) {
      if (Files.isDirectory(datadir.resolve("blocks"))) {
        return datadir;
      }
    }
    throw new IOException("archive " + name + " has no blocks/ folder");
  }

  /** The ground truth of {@code a}: every 't' record Core wrote. */
  public static List<TxRow> txRows(Archive a) throws IOException {
    Path plain = dir().resolve(a.baseName + ".txindex.tsv");
    Path gz = dir().resolve(a.baseName + ".txindex.tsv.gz");
    boolean zipped = !Files.exists(plain);
    List<TxRow> rows = new ArrayList<>();
    HexFormat hex = HexFormat.of();
    try (InputStream raw = Files.newInputStream(zipped ? gz : plain);
        BufferedReader r =
            new BufferedReader(
                new InputStreamReader(
                    zipped ? new GZIPInputStream(raw, 1 << 16) : raw, StandardCharsets.US_ASCII),
                1 << 16)) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.isEmpty() || line.startsWith("txid")) {
          continue;
        }
        String[] f = line.split("\t");
        byte[] display = hex.parseHex(f[0]);
        byte[] internal = new byte[32];
        for (int i = 0; i < 32; i++) {
          internal[i] = display[31 - i];
        }
        rows.add(
            new TxRow(
                f[0],
                internal,
                Integer.parseInt(f[1]),
                Long.parseLong(f[2]),
                Long.parseLong(f[3]),
                Long.parseLong(f[4])));
      }
    }
    return rows;
  }

  /**
   * One row of {@code mainnet-real-txids.tsv.gz}: a real mainnet txid (display hex, and internal
   * order) and its block (internal order).
   */
  public record RealTx(String txidHex, byte[] txid, byte[] blockHash) {}

  /** The 87,308 real mainnet txids with their blocks (mostly beyond the fixtures' height 599). */
  public static List<RealTx> realMainnetTxids() throws IOException {
    List<RealTx> out = new ArrayList<>();
    try (BufferedReader r =
        new BufferedReader(
            new InputStreamReader(
                new GZIPInputStream(
                    Files.newInputStream(dir().resolve("mainnet-real-txids.tsv.gz")), 1 << 16),
                StandardCharsets.US_ASCII))) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.isEmpty() || line.startsWith("txid")) {
          continue;
        }
        String[] f = line.split("\t");
        out.add(new RealTx(f[0], internal(f[0]), internal(f[1])));
      }
    }
    return out;
  }

  /**
   * The first {@code limit} real mainnet txids (display hex, file order) that are not in {@code
   * known}: real negatives for a fixture whose txids {@code known} holds.
   */
  public static List<String> realTxidsAbsentFrom(Set<String> known, int limit) throws IOException {
    return realMainnetTxids().stream()
        .map(RealTx::txidHex)
        .filter(t -> !known.contains(t))
        .limit(limit)
        .toList();
  }

  /** SHA-256 of every regular file under {@code dir}, by relative path. */
  public static Map<String, String> hashTree(Path dir) throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        MessageDigest md = sha256();
        try (InputStream in = Files.newInputStream(p)) {
          byte[] buf = new byte[1 << 16];
          int n;
          while ((n = in.read(buf)) > 0) {
            md.update(buf, 0, n);
          }
        }
        out.put(dir.relativize(p).toString(), HexFormat.of().formatHex(md.digest()));
      }
    }
    return out;
  }

  /**
   * Internal byte order (as hashed) into display hex (reversed), as Core prints txids and hashes.
   */
  public static String displayHex(byte[] internal) {
    return HashKeys.toDisplayHex(internal);
  }

  /** Reverses display hex into internal byte order. */
  public static byte[] internal(String displayHex) {
    return HashKeys.fromDisplayHex("fixture hash", displayHex);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }
}
