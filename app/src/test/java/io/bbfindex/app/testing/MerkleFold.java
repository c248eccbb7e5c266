package io.bbfindex.app.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.bbfindex.ingest.testing.GroundTruth;

/** The test's own merkle arithmetic (JDK SHA-256 only), sharing nothing with the server's. */
public final class MerkleFold {
  private MerkleFold() {}

  /** Folds an Electrum-style proof from the txid up: the merkle root, internal byte order. */
  public static byte[] root(String txidHex, JsonNode proof) {
    byte[] h = TxBytes.internal(txidHex);
    long pos = proof.get("pos").asLong();
    for (JsonNode sibling : proof.get("merkle")) {
      byte[] s = TxBytes.internal(sibling.asText());
      byte[] pair = new byte[64];
      boolean right = (pos & 1) == 1; // we are the right child: the sibling comes first
      System.arraycopy(right ? s : h, 0, pair, 0, 32);
      System.arraycopy(right ? h : s, 0, pair, 32, 32);
      h = GroundTruth.sha256d(pair);
      pos >>>= 1;
    }
    assertEquals(0, pos, "the position has more levels than the branch");
    return h;
  }
}
