package io.bbfindex.ingest.records;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.bbfindex.ingest.encoding.CoreVarInt;
import io.bbfindex.ingest.encoding.CorruptRecordException;
import io.bbfindex.ingest.testing.AllocationBudget;
import io.bbfindex.ingest.testing.CoreLevelDbWriter;
import io.bbfindex.ingest.txindex.HashedKeys;
import java.util.Arrays;
import org.bitcoinj.base.Sha256Hash;

/**
 * Fuzz target: the decoders of the LevelDB records the ingest reads, {@code 'b'} (block index),
 * {@code 't'} (legacy txindex), {@code 'x'} and {@code 's'} (hashed txindex) and the flag records.
 *
 * <p>Input: one selector byte, then the record ({@link #decode} says how each kind is cut). The
 * invariants, for every input: the decoder either returns or throws {@link CorruptRecordException}
 * (any other exception escaping is a finding); what it returns re-encodes to exactly the bytes it
 * was given (Core's VARINT is one-to-one, so a decoder that accepts bytes it would not write has
 * read something else than Core wrote); a {@code 'b'} record it accepts has a header that hashes to
 * its key; and it allocates at most a constant plus a small multiple of the input (a length trusted
 * before it is checked would allocate far more).
 *
 * <p>Seeds (in {@code RecordDecodingFuzzTestInputs/decode/}) are real records of each kind, so the
 * fuzzer starts past the SHA-256d check of {@code 'b'} records; docs/fuzzing.md says how to run it
 * for longer.
 */
class RecordDecodingFuzzTest {

  /** Allocation allowed whatever the input: the decoded record, an exception and its message. */
  private static final long FIXED_ALLOCATION = 64 * 1024;

  /** Allocation allowed per input byte (hex in messages, copies of header and key). */
  private static final long ALLOCATION_PER_BYTE = 16;

  @FuzzTest
  void decode(byte[] input) {
    decodeOrRefuse(input); // a first run loads and initialises classes, which allocates once
    AllocationBudget budget = AllocationBudget.start();
    decodeOrRefuse(input);
    budget.check("decoding", input.length, FIXED_ALLOCATION, ALLOCATION_PER_BYTE);
  }

  private static void decodeOrRefuse(byte[] input) {
    try {
      decodeOne(input);
    } catch (CorruptRecordException refused) {
      // the one way a decoder may refuse a record
    }
  }

  /** Decodes {@code input} as the record kind its first byte selects and checks what comes out. */
  private static void decodeOne(byte[] input) throws CorruptRecordException {
    if (input.length == 0) {
      return;
    }
    byte[] rest = Arrays.copyOfRange(input, 1, input.length);
    switch (Math.floorMod(input[0], 6)) {
      case 0 -> blockIndex(rest);
      case 1 -> txPos(rest);
      case 2 -> hashedRow(rest);
      case 3 -> seqKey(rest);
      case 4 -> lastBlockFile(rest);
      default -> flag(rest);
    }
  }

  /** {@code 'b'}: 32 bytes of hash for the key, the rest is the value. */
  private static void blockIndex(byte[] rest) throws CorruptRecordException {
    if (rest.length < 32) {
      // too short for a hash: the key itself is malformed (not 'b' + 32 bytes)
      DiskBlockIndex.decode(concat(new byte[] {DbKeys.BLOCK_INDEX}, rest), new byte[0]);
      throw new AssertionError("a key of " + (rest.length + 1) + " bytes was accepted");
    }
    byte[] hash = Arrays.copyOf(rest, 32);
    byte[] value = Arrays.copyOfRange(rest, 32, rest.length);
    DiskBlockIndex b = DiskBlockIndex.decode(DbKeys.blockKey(hash), value);
    assertArrayEquals(hash, b.hash());
    assertArrayEquals(hash, Sha256Hash.hashTwice(b.header()), "accepted header hashes elsewhere");
    assertArrayEquals(
        value, CoreLevelDbWriter.blockIndexValue(b), "'b' value does not re-encode to its bytes");
  }

  /** {@code 't'}: the whole rest is the value (the key only names the record in messages). */
  private static void txPos(byte[] value) throws CorruptRecordException {
    DiskTxPos pos = DiskTxPos.decode(DbKeys.txKey(new byte[32]), value);
    byte[] encoded =
        concat(
            CoreVarInt.encode(pos.file()),
            concat(CoreVarInt.encode(pos.dataPos()), CoreVarInt.encode(pos.txOffset())));
    assertArrayEquals(value, encoded, "'t' value does not re-encode to its bytes");
  }

  /** {@code 'x'}: the whole rest is the key. */
  private static void hashedRow(byte[] key) throws CorruptRecordException {
    HashedKeys.TxRow row = HashedKeys.decodeTxRow(key);
    assertArrayEquals(
        key,
        HashedKeys.txRowKey(row.prefix(), row.blockSeq(), row.offsetFromHeader()),
        "'x' key does not re-encode to its bytes");
  }

  /** {@code 's'}: {@code 's'} followed by the rest is the key. */
  private static void seqKey(byte[] rest) throws CorruptRecordException {
    byte[] key = concat(new byte[] {HashedKeys.BLOCK_BY_SEQ}, rest);
    long seq = HashedKeys.decodeSeqKey(key);
    assertArrayEquals(key, HashedKeys.seqKey(seq), "'s' key does not re-encode to its bytes");
  }

  /** {@code 'l'}: the rest is the value. */
  private static void lastBlockFile(byte[] value) throws CorruptRecordException {
    int n = FlagRecords.decodeLastBlockFile(value);
    // 'f' + int32 LE: the same fixed-width encoding as the 'l' value
    assertArrayEquals(
        value,
        Arrays.copyOfRange(DbKeys.fileKey(n), 1, 5),
        "'l' value does not re-encode to its bytes");
  }

  /** A flag: the rest is the value. */
  private static void flag(byte[] value) throws CorruptRecordException {
    boolean set = FlagRecords.decodeFlag(DbKeys.flagKey("txindex"), value);
    assertArrayEquals(new byte[] {(byte) (set ? '1' : '0')}, value);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] r = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }
}
