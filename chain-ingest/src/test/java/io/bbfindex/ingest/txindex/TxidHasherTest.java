package io.bbfindex.ingest.txindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.encoding.CorruptRecordException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Transactions Core's reader refuses are refused, not walked differently (found by {@code
 * BlockFileFuzzTest}: its input {@code finding-txidhasher-no-inputs-zero-flag}). The txids of real
 * transactions are checked on every fixture by {@code HashedBlockDataTxidsTest}.
 */
class TxidHasherTest {

  private static final HexFormat HEX = HexFormat.of();

  @Test
  void noInputsFollowedByAZeroFlagIsRefusedInsteadOfReadAsOutputs() {
    // version | 00 (no inputs) | 00 (flag 0) | lock time, then the next bytes of a block: Core
    // reads this as a 10-byte transaction without outputs; reading a 0x00 output count from the
    // lock time made it 11 bytes and shifted every later transaction.
    byte[] block = HEX.parseHex("01000000" + "00" + "00" + "00000000" + "ffffffff");
    CorruptRecordException e =
        assertThrows(
            CorruptRecordException.class,
            () -> new TxidHasher().hash(block, 0, block.length, new byte[32], 0));
    assertTrue(e.getMessage().contains("no inputs"), e.getMessage());
  }

  @Test
  void aWitnessFlagOverEmptyWitnessesIsRefusedAsCoreDoes() {
    String input = "11".repeat(32) + "00000000" + "00" + "ffffffff"; // prevout, empty script, seq
    String output = "0100000000000000" + "00"; // value, empty script
    byte[] tx =
        HEX.parseHex("02000000" + "0001" + "01" + input + "01" + output + "00" + "00000000");
    CorruptRecordException e =
        assertThrows(
            CorruptRecordException.class,
            () -> new TxidHasher().hash(tx, 0, tx.length, new byte[32], 0));
    assertTrue(e.getMessage().contains("without any witness"), e.getMessage());
  }

  @Test
  void aNonCanonicalCompactSizeIsRefusedAsCoreDoes() {
    // one output, its count written as fd 01 00 (found by BlockFileFuzzTest, input
    // finding-txidhasher-non-canonical-compactsize): the bytes hashed as they are gave a txid no
    // node computes (the txid is the hash of the canonical serialization)
    String input = "11".repeat(32) + "00000000" + "00" + "ffffffff";
    byte[] tx =
        HEX.parseHex("01000000" + "01" + input + "fd0100" + "0100000000000000" + "00" + "00000000");
    CorruptRecordException e =
        assertThrows(
            CorruptRecordException.class,
            () -> new TxidHasher().hash(tx, 0, tx.length, new byte[32], 0));
    assertTrue(e.getMessage().contains("non-canonical"), e.getMessage());
  }

  @Test
  void aWitnessTransactionIsWalkedToItsEnd() throws CorruptRecordException {
    String input = "11".repeat(32) + "00000000" + "00" + "ffffffff";
    String output = "0100000000000000" + "00";
    byte[] tx =
        HEX.parseHex(
            "02000000" + "0001" + "01" + input + "01" + output + "01" + "02abcd" + "00000000");
    assertEquals(tx.length, new TxidHasher().hash(tx, 0, tx.length, new byte[32], 0));
  }

  @Test
  void hashingInPlaceGivesTheSameTxidEvenWhenTheLockTimeOverlapsItsOwnCopy() throws Exception {
    // a 2-byte witness (one input, one empty item): the lock time moves 2 bytes back, onto
    // itself; the version moves 2 bytes on, onto itself too
    String input = "11".repeat(32) + "00000000" + "00" + "ffffffff";
    String body = "01" + input + "01" + "0100000000000000" + "00";
    String tail = "ffeeddcc"; // the next transaction's first bytes: never touched
    byte[] tx = HEX.parseHex("02000000" + "0001" + body + "0100" + "78563412" + tail);
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    byte[] expected =
        sha.digest(sha.digest(HEX.parseHex("02000000" + body + "78563412"))); // no witness
    byte[] viaHash = new byte[32];
    byte[] unchanged = tx.clone();
    assertEquals(tx.length - 4, new TxidHasher().hash(tx, 0, tx.length, viaHash, 0));
    assertArrayEquals(unchanged, tx, "hash leaves the bytes as they were");
    byte[] inPlace = new byte[32];
    TxidHasher hasher = new TxidHasher();
    assertEquals(tx.length - 4, hasher.hashOverwritingWitness(tx, 0, tx.length, inPlace, 0));
    assertArrayEquals(expected, viaHash);
    assertArrayEquals(expected, inPlace);
    assertEquals(HEX.parseHex(body).length + 8, hasher.lastHashedBytes());
    assertArrayEquals(
        HEX.parseHex(tail), Arrays.copyOfRange(tx, tx.length - 4, tx.length), "next tx intact");
  }

  @Test
  void aTransactionWithoutWitnessIsNotTouchedWhenHashedInPlace() throws Exception {
    String input = "11".repeat(32) + "00000000" + "00" + "ffffffff";
    byte[] tx =
        HEX.parseHex("01000000" + "01" + input + "01" + "0100000000000000" + "00" + "00000000");
    byte[] unchanged = tx.clone();
    byte[] inPlace = new byte[32];
    new TxidHasher().hashOverwritingWitness(tx, 0, tx.length, inPlace, 0);
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    assertArrayEquals(sha.digest(sha.digest(unchanged)), inPlace);
    assertArrayEquals(unchanged, tx);
  }
}
