package io.bbfindex.ingest.txindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.testing.Fixtures;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * SipHash-1-3-UJ and the hashed-row codec against a vector read from a real Core 31.99 node (the
 * mainnet fixture's log): its {@code txid_hash_salt} value and the {@code 'x'} key Core wrote for
 * the first person-to-person payment (txid f4184fc5..., block 170 = block seq 169, nTxOffset 135).
 */
class HashedKeysTest {

  /** Value of the fixture's "txid_hash_salt" record: k0, k1 as uint64 LE. */
  private static final String SALT = "7c5dda4e955bfd306e318c9b5c948f4c";

  /** The 'x' key Core wrote for the payment. */
  private static final String X_KEY = "78264dc1d9bf80290000d7";

  private static final String TXID =
      "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";

  @Test
  void theSaltAndTxidGiveThePrefixCoreWrote() throws CorruptRecordException {
    SipHash13Uj h = HashedKeys.decodeSalt(HexFormat.of().parseHex(SALT));
    assertEquals(0x30fd5b954eda5d7cL, h.k0());
    assertEquals(0x4c8f945c9b8c316eL, h.k1());
    assertEquals(0x264dc1d9bfL, h.prefix40(Fixtures.internal(TXID), 0));
  }

  @Test
  void aRealKeyDecodesAndReencodes() throws CorruptRecordException {
    byte[] key = HexFormat.of().parseHex(X_KEY);
    HashedKeys.TxRow row = HashedKeys.decodeTxRow(key);
    assertEquals(0x264dc1d9bfL, row.prefix());
    assertEquals(169, row.blockSeq());
    assertEquals(80 + 135, row.offsetFromHeader());
    assertArrayEquals(
        key, HashedKeys.txRowKey(row.prefix(), row.blockSeq(), row.offsetFromHeader()));
  }

  @Test
  void everyTxidBitAndSaltBitChangesTheHash() {
    byte[] txid = Fixtures.internal(TXID);
    SipHash13Uj h = new SipHash13Uj(0x30fd5b954eda5d7cL, 0x4c8f945c9b8c316eL);
    long base = h.hash(txid, 0);
    for (int bit = 0; bit < 256; bit++) {
      byte[] t = txid.clone();
      t[bit / 8] ^= (byte) (1 << (bit % 8));
      assertNotEquals(base, h.hash(t, 0), "bit " + bit);
    }
    assertNotEquals(base, new SipHash13Uj(0x30fd5b954eda5d7dL, 0x4c8f945c9b8c316eL).hash(txid, 0));
    assertNotEquals(base, new SipHash13Uj(0x30fd5b954eda5d7cL, 0x4c8f945c9b8c316fL).hash(txid, 0));
  }

  @Test
  void malformedRowsAndSaltsAreRefused() {
    assertThrows(
        CorruptRecordException.class,
        () -> HashedKeys.decodeTxRow(HexFormat.of().parseHex("78264dc1d9bf8029")));
    assertThrows(
        CorruptRecordException.class,
        () -> HashedKeys.decodeTxRow(HexFormat.of().parseHex("74264dc1d9bf00000000d7")));
    assertThrows(
        CorruptRecordException.class,
        () -> HashedKeys.decodeTxRow(HexFormat.of().parseHex("78264dc1d9bf80290000d700")));
    assertThrows(CorruptRecordException.class, () -> HashedKeys.decodeSalt(new byte[15]));
  }

  @Test
  void seqKeysUseCoreVarInt() throws CorruptRecordException {
    assertArrayEquals(HexFormat.of().parseHex("7300"), HashedKeys.seqKey(0));
    assertArrayEquals(HexFormat.of().parseHex("738029"), HashedKeys.seqKey(169));
    assertEquals(169, HashedKeys.decodeSeqKey(HexFormat.of().parseHex("738029")));
  }
}
