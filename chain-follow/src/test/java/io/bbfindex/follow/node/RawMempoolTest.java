package io.bbfindex.follow.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.encoding.Hash32;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RawMempoolTest {
  private static final String HASH =
      "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206";

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void parsesTxidsInInternalOrderAndTheSequenceWhateverTheMemberOrder() throws IOException {
    RawMempool m = new RawMempool();
    assertTrue(
        m.parse(
            utf8(
                "{\"id\":1,\"result\":{\"mempool_sequence\":77,\"txids\":[\""
                    + HASH
                    + "\"],\"extra\":{\"a\":[1]}},\"error\":null}")));
    assertEquals(1, m.count());
    assertEquals(77, m.sequence());
    assertArrayEquals(
        Hash32.ofDisplayHex(HASH).internal(), Arrays.copyOfRange(m.txids(), 0, Hash32.BYTES));
  }

  @Test
  void theBufferIsReusedAndHoldsExactlyTheLastAnswer() throws IOException {
    SplittableRandom random = new SplittableRandom(3);
    RawMempool m = new RawMempool();
    for (int n : new int[] {5_000, 0, 1_500}) {
      Hash32[] txids = new Hash32[n];
      StringBuilder json = new StringBuilder("{\"result\":{\"txids\":[");
      for (int i = 0; i < n; i++) {
        byte[] b = new byte[32];
        random.nextBytes(b);
        txids[i] = Hash32.ofInternal(b);
        json.append(i == 0 ? "\"" : ",\"").append(txids[i].displayHex()).append('"');
      }
      json.append("],\"mempool_sequence\":").append(n).append("},\"error\":null,\"id\":2}");
      assertTrue(m.parse(utf8(json.toString())));
      assertEquals(n, m.count());
      assertEquals(n, m.sequence());
      for (int i = 0; i < n; i++) {
        assertEquals(txids[i], Hash32.ofInternal(m.txids(), i * Hash32.BYTES));
      }
    }
  }

  @Test
  void anErrorAnswerOrOneWithoutTxidsIsNotAMempool() throws IOException {
    RawMempool m = new RawMempool();
    assertFalse(
        m.parse(
            utf8("{\"result\":null,\"error\":{\"code\":-28,\"message\":\"Loading\"},\"id\":1}")));
    assertFalse(m.parse(utf8("{\"result\":{\"mempool_sequence\":3},\"error\":null,\"id\":1}")));
    assertFalse(m.parse(utf8("[]")));
  }

  @Test
  void aMalformedTxidIsAnIoException() {
    RawMempool m = new RawMempool();
    assertThrows(
        IOException.class, () -> m.parse(utf8("{\"result\":{\"txids\":[\"abcd\"]},\"id\":1}")));
    String notHex = "zz" + HASH.substring(2);
    assertThrows(
        IOException.class,
        () -> m.parse(utf8("{\"result\":{\"txids\":[\"" + notHex + "\"]},\"id\":1}")));
    assertThrows(IOException.class, () -> m.parse(utf8("{\"result\":{\"txids\":[1]},\"id\":1}")));
    assertThrows(IOException.class, () -> m.parse(utf8("{\"result\":{\"txids\":[")));
  }
}
