package io.bbfindex.benchmarks.synthetic;

import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Serializes transactions shaped like mainnet's (as blk files store them, witness included) into a
 * growing buffer, and computes each txid from the parts it wrote (SHA-256d of version, inputs,
 * outputs and lock time; independent of the product's {@code TxidHasher}, which the benchmarks
 * measure). Signatures, keys, hashes and prevouts are random bytes of the real lengths, so every
 * txid is new, while sizes and structure follow today's mix:
 *
 * <ul>
 *   <li>45 % P2WPKH spends (1-2 inputs, 2-item witness of a 71-72-byte signature and a 33-byte
 *       key);
 *   <li>20 % taproot key-path spends (1-2 inputs, one 64-byte signature);
 *   <li>20 % legacy P2PKH spends (1-3 inputs, 106-107-byte scriptSig; no witness);
 *   <li>10 % batched payouts (one segwit input, 5-30 outputs);
 *   <li>5 % consolidations (5-40 P2WPKH inputs, one output).
 * </ul>
 *
 * The mean is about 470 bytes a transaction (mainnet's is 500-600). Blocks begin with a segwit
 * coinbase (height push, witness commitment output, 32-byte witness reserved value).
 *
 * <p>Not thread-safe.
 */
public final class SyntheticTransactions {

  private final SplittableRandom rnd;
  private final MessageDigest sha256;
  private final byte[] first = new byte[32];
  private byte[] buf = new byte[1 << 21];
  private int len;

  public SyntheticTransactions(long seed) {
    this.rnd = new SplittableRandom(seed);
    try {
      this.sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("every JDK has SHA-256", e);
    }
  }

  /**
   * The bytes written since the last {@link #reset}. Shared: copy what must outlive the next call.
   */
  public byte[] buffer() {
    return buf;
  }

  public int length() {
    return len;
  }

  /** Starts a new buffer at {@code start} (bytes before it are left as they are, e.g. a header). */
  public void reset(int start) {
    ensure(start);
    len = start;
  }

  /** Writes {@code b[off .. off+n)} at the end. */
  public void put(byte[] b, int off, int n) {
    ensure(n);
    System.arraycopy(b, off, buf, len, n);
    len += n;
  }

  /** Writes a CompactSize at the end. */
  public void compactSize(long v) {
    ensure(9);
    if (v < 253) {
      buf[len++] = (byte) v;
    } else if (v <= 0xFFFF) {
      buf[len++] = (byte) 253;
      le(v, 2);
    } else {
      buf[len++] = (byte) 254;
      le(v, 4);
    }
  }

  /** Appends the coinbase of block {@code height}; its txid goes to {@code txid[off..off+32)}. */
  public void coinbase(int height, byte[] txid, int off) {
    int start = len;
    le(2, 4);
    bytes(0x00, 0x01);
    int body = len;
    compactSize(1);
    zeros(32);
    le(0xFFFF_FFFFL, 4);
    compactSize(4 + 20);
    bytes(0x03);
    le(height, 3);
    random(20);
    le(0xFFFF_FFFFL, 4);
    compactSize(2);
    le(312_500_000L + rnd.nextInt(50_000_000), 8);
    script(0x00, 0x14, 20); // P2WPKH payout
    le(0, 8);
    compactSize(38);
    bytes(0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed); // OP_RETURN witness commitment
    random(32);
    int bodyEnd = len;
    compactSize(1); // witness: the reserved value
    compactSize(32);
    zeros(32);
    le(0, 4);
    txid(start, body, bodyEnd, txid, off);
  }

  /** Appends one transaction of the mix; its txid goes to {@code txid[off..off+32)}. */
  public void transaction(byte[] txid, int off) {
    int kind = rnd.nextInt(100);
    if (kind < 45) {
      segwit(1 + (rnd.nextInt(10) < 3 ? 1 : 0), 2, false, txid, off);
    } else if (kind < 65) {
      segwit(1 + (rnd.nextInt(10) < 2 ? 1 : 0), 2, true, txid, off);
    } else if (kind < 85) {
      legacy(1 + rnd.nextInt(3), 2, txid, off);
    } else if (kind < 95) {
      segwit(1, 5 + rnd.nextInt(26), false, txid, off);
    } else {
      segwit(5 + rnd.nextInt(36), 1, false, txid, off);
    }
  }

  private void segwit(int inputs, int outputs, boolean taproot, byte[] txid, int off) {
    int start = len;
    le(2, 4);
    bytes(0x00, 0x01);
    int body = len;
    compactSize(inputs);
    for (int i = 0; i < inputs; i++) {
      random(32);
      le(rnd.nextInt(4), 4);
      compactSize(0);
      le(0xFFFF_FFFDL, 4);
    }
    outputs(outputs);
    int bodyEnd = len;
    for (int i = 0; i < inputs; i++) {
      if (taproot) {
        compactSize(1);
        compactSize(64);
        random(64);
      } else {
        compactSize(2);
        int sig = 71 + rnd.nextInt(2);
        compactSize(sig);
        random(sig);
        compactSize(33);
        random(33);
      }
    }
    le(0, 4);
    txid(start, body, bodyEnd, txid, off);
  }

  private void legacy(int inputs, int outputs, byte[] txid, int off) {
    int start = len;
    le(1, 4);
    int body = len;
    compactSize(inputs);
    for (int i = 0; i < inputs; i++) {
      random(32);
      le(rnd.nextInt(4), 4);
      int sig = 71 + rnd.nextInt(2);
      compactSize(1 + sig + 1 + 33);
      ensure(1);
      buf[len++] = (byte) sig;
      random(sig);
      ensure(1);
      buf[len++] = 33;
      random(33);
      le(0xFFFF_FFFFL, 4);
    }
    outputs(outputs);
    int bodyEnd = len;
    le(0, 4);
    txid(start, body, bodyEnd, txid, off);
  }

  private void outputs(int n) {
    compactSize(n);
    for (int i = 0; i < n; i++) {
      le(10_000 + rnd.nextLong(100_000_000L), 8);
      switch (rnd.nextInt(4)) {
        case 0 -> script(0x00, 0x14, 20); // P2WPKH
        case 1 -> script(0x51, 0x20, 32); // P2TR
        case 2 -> { // P2PKH
          compactSize(25);
          bytes(0x76, 0xa9, 0x14);
          random(20);
          bytes(0x88, 0xac);
        }
        default -> { // P2SH
          compactSize(23);
          bytes(0xa9, 0x14);
          random(20);
          bytes(0x87);
        }
      }
    }
  }

  /** A witness program script: version opcode, push length, program. */
  private void script(int version, int push, int programBytes) {
    compactSize(2 + programBytes);
    bytes(version, push);
    random(programBytes);
  }

  /** SHA-256d of version + body + lock time (the serialization without witness). */
  private void txid(int start, int body, int bodyEnd, byte[] out, int off) {
    try {
      sha256.update(buf, start, 4);
      sha256.update(buf, body, bodyEnd - body);
      sha256.update(buf, len - 4, 4);
      sha256.digest(first, 0, 32);
      sha256.update(first);
      sha256.digest(out, off, 32);
    } catch (DigestException e) {
      throw new AssertionError("a 32-byte buffer always fits SHA-256", e);
    }
  }

  private void le(long v, int bytes) {
    ensure(bytes);
    for (int i = 0; i < bytes; i++) {
      buf[len++] = (byte) (v >>> (8 * i));
    }
  }

  private void bytes(int... b) {
    ensure(b.length);
    for (int x : b) {
      buf[len++] = (byte) x;
    }
  }

  private void zeros(int n) {
    ensure(n);
    Arrays.fill(buf, len, len + n, (byte) 0);
    len += n;
  }

  private void random(int n) {
    ensure(n + 8);
    for (int i = 0; i < n; i += 8) {
      long r = rnd.nextLong();
      for (int j = 0; j < 8; j++) {
        buf[len + i + j] = (byte) (r >>> (8 * j));
      }
    }
    len += n;
  }

  private void ensure(int more) {
    if (len + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
    }
  }
}
