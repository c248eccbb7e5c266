package io.bbfindex.benchmarks.follow;

import java.io.ByteArrayOutputStream;
import java.util.SplittableRandom;
import org.bitcoinj.base.Sha256Hash;

/**
 * Serialized blocks of plausible segwit payments (BIP 144 serialization: one P2WPKH input with an
 * empty scriptSig and a witness of a 72-byte signature and a 33-byte key, two P2WPKH outputs: 222
 * bytes, 113 of them outside the witness, a typical payment today) chained by their header hashes,
 * so that {@code bench follow} parses and connects what a node would hand over, witness bytes
 * (which the txid leaves out and the parser must skip) included, without a node.
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
      out.write(0x00); // segwit marker
      out.write(0x01); // and flag
      compactSize(out, 1);
      out.writeBytes(bytes(32));
      le32(out, random.nextInt(4));
      compactSize(out, 0); // P2WPKH spend: empty scriptSig
      le32(out, 0xffff_fffd);
      compactSize(out, 2);
      for (int o = 0; o < 2; o++) {
        le64(out, 10_000 + random.nextInt(1_000_000));
        compactSize(out, 22);
        out.write(0x00);
        out.write(0x14);
        out.writeBytes(bytes(20));
      }
      compactSize(out, 2); // the input's witness: signature, public key
      compactSize(out, 72);
      out.writeBytes(bytes(72));
      compactSize(out, 33);
      out.writeBytes(bytes(33));
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
