package io.bbfindex.ingest.testing;

import io.bbfindex.ingest.archive.ArchiveExtractor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Core 31.99 archives of {@code fixtures/} (hashed txindex, mixed txindex, block-file XOR) and
 * their {@code *.truth.tsv}: one row per (txid, block), stale blocks included.
 */
public final class HashedFixtures {

  /** The three archives, with where the datadir sits inside the extracted top directory. */
  public enum Archive {
    HASHED_MULTIFILE("core-31.99-regtest-hashed-multifile", "regtest"),
    MIXED("core-31.99-regtest-mixed", "regtest"),
    MAINNET_HASHED("core-31.99-mainnet-0-599-hashed", "");

    public final String baseName;
    public final String datadirSubpath;

    Archive(String baseName, String datadirSubpath) {
      this.baseName = baseName;
      this.datadirSubpath = datadirSubpath;
    }
  }

  /**
   * One truth row. {@code txOffset} has legacy semantics (after the 80-byte header); {@code
   * indexRow} is {@code "x"}, {@code "t"} or {@code "-"} (not indexed: the genesis coinbase).
   */
  public record TruthRow(
      String txidHex,
      byte[] txidInternal,
      int file,
      long pos,
      long txOffset,
      long absOffset,
      String blockHashHex,
      int height,
      boolean active,
      boolean inTxindex,
      String indexRow) {}

  private HashedFixtures() {}

  /** Extracts {@code a} into {@code into} and returns the datadir. */
  public static Path extract(Archive a, Path into) throws IOException {
    ArchiveExtractor.extractTarGz(Fixtures.dir().resolve(a.baseName + ".tar.gz"), into, 0);
    Path top = into.resolve(a.baseName);
    return a.datadirSubpath.isEmpty() ? top : top.resolve(a.datadirSubpath);
  }

  /** Every truth row, in file order. */
  public static List<TruthRow> rows(Archive a) throws IOException {
    List<TruthRow> out = new ArrayList<>();
    for (String line : Files.readAllLines(Fixtures.dir().resolve(a.baseName + ".truth.tsv"))) {
      if (line.isEmpty() || line.startsWith("txid")) {
        continue;
      }
      String[] f = line.split("\t");
      out.add(
          new TruthRow(
              f[0],
              Fixtures.internal(f[0]),
              Integer.parseInt(f[1]),
              Long.parseLong(f[2]),
              Long.parseLong(f[3]),
              Long.parseLong(f[4]),
              f[5],
              Integer.parseInt(f[6]),
              f[7].equals("1"),
              f[8].equals("1"),
              f[9]));
    }
    return out;
  }

  /**
   * The row a lookup must answer for each txid, as Core's RPC does: the active-chain row when there
   * is one, else the (first) stale row. Keyed by display hex, in first-seen order.
   */
  public static Map<String, TruthRow> expectedAnswers(Archive a) throws IOException {
    Map<String, TruthRow> out = new LinkedHashMap<>();
    for (TruthRow r : rows(a)) {
      TruthRow prev = out.get(r.txidHex());
      if (prev == null || (!prev.active() && r.active())) {
        out.put(r.txidHex(), r);
      }
    }
    return out;
  }
}
