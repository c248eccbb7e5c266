package io.bbfindex.benchmarks.follow;

import java.io.ByteArrayOutputStream;
import java.util.SplittableRandom;
import org.bitcoinj.base.Sha256Hash;

/**
 * Serialized blocks of plausible legacy transactions (one input with a 107-byte scriptSig, two
 * P2WPKH outputs: about 225 bytes, a typical payment) chained by their header hashes, so that
 * {@code bench follow} parses and connects what a node would hand over, without a node.
 */
final class SyntheticBlocks {
  private final SplittableRandom random;

  SyntheticBlocks(long seed) {
    this.random = new SplittableRandom(seed);
  }

  /** A block of {@code txs} transactions on top of {@code prevHash} (internal order). */
  byte[] block(byte[] prevHash, int txs) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(80 + txs * 230);
    le32(out, 0x2000_0000);
    out.writeBytes(prevHash);
    out.writeBytes(bytes(32)); // merkle root: nothing checks it here
    le32(out, 1_700_000_000);
    le32(out, 0x207f_ffff);
    le32(out, random.nextInt());
    compactSize(out, txs);
    for (int i = 0; i < txs; i++) {
      le32(out, 2);
      compactSize(out, 1);
      out.writeBytes(bytes(32));
      le32(out, random.nextInt(4));
      compactSize(out, 107);
      out.writeBytes(bytes(107));
      le32(out, 0xffff_fffd);
      compactSize(out, 2);
      for (int o = 0; o < 2; o++) {
        le64(out, 10_000 + random.nextInt(1_000_000));
        compactSize(out, 22);
        out.write(0x00);
        out.write(0x14);
        out.writeBytes(bytes(20));
      }
      le32(out, 0);
    }
    return out.toByteArray();
  }

  /** The hash (internal order) of a block's header. */
  static byte[] hash(byte[] block) {
    return Sha256Hash.hashTwice(block, 0, 80);
  }

  byte[] bytes(int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  private static void le32(ByteArrayOutputStream out, int v) {
    for (int i = 0; i < 4; i++) {
      out.write(v >>> (8 * i));
    }
  }

  private static void le64(ByteArrayOutputStream out, long v) {
    for (int i = 0; i < 8; i++) {
      out.write((int) (v >>> (8 * i)));
    }
  }

  private static void compactSize(ByteArrayOutputStream out, int n) {
    if (n < 0xfd) {
      out.write(n);
    } else {
      out.write(0xfd);
      out.write(n);
      out.write(n >>> 8);
    }
  }
}
