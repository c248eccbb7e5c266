package io.bbfindex.app.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.zip.GZIPInputStream;

/** Real mainnet txids from {@code fixtures/mainnet-real-txids.tsv.gz} (most from blocks beyond 599). */
public final class RealTxids {
  private RealTxids() {}

  /** The first {@code limit} txids of the file that are not in {@code known}: real negatives. */
  public static List<String> absentFrom(Set<String> known, int limit) throws IOException {
    List<String> out = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(
        new GZIPInputStream(Files.newInputStream(Fixtures.dir().resolve("mainnet-real-txids.tsv.gz"))), StandardCharsets.US_ASCII))) {
      r.readLine();
      for (String line = r.readLine(); line != null && out.size() < limit; line = r.readLine()) {
        String txid = line.substring(0, line.indexOf('\t'));
        if (!known.contains(txid)) {
          out.add(txid);
        }
      }
    }
    return out;
  }
}
