package io.bbfindex.app.testing;

import io.bbfindex.ingest.testing.GroundTruth;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A transaction parser for the tests, sharing no code with the server (no bitcoinj, nothing of
 * chain-ingest's main code): the outpoints, the output values and the txid (SHA-256d of the
 * serialization with the BIP 144 marker, flag and witnesses left out), computed from the bytes
 * alone.
 */
public final class TxBytes {
  /** One input's outpoint: the spent txid (displayed hex) and output index. */
  public record Outpoint(String txidHex, long vout) {}

  public final List<Outpoint> inputs = new ArrayList<>();
  public final List<Long> outputValues = new ArrayList<>();
  public final String txidHex;

  /**
   * Where the data of the first non-empty witness item starts in the serialization, or -1 when the
   * transaction carries no witness: a byte a test can change without changing any length.
   */
  public final int firstWitnessData;

  public TxBytes(byte[] raw) {
    ByteBuffer in = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
    ByteArrayOutputStream stripped = new ByteArrayOutputStream();
    int version = in.getInt();
    put4(stripped, version);
    boolean segwit = raw[4] == 0 && raw[5] != 0;
    if (segwit) {
      in.position(6);
    }
    int startIns = in.position();
    long nIn = compact(in);
    for (long i = 0; i < nIn; i++) {
      byte[] prev = new byte[32];
      in.get(prev);
      long vout = in.getInt() & 0xffffffffL;
      inputs.add(new Outpoint(displayHex(prev), vout));
      long script = compact(in);
      in.position(in.position() + (int) script + 4);
    }
    long nOut = compact(in);
    for (long i = 0; i < nOut; i++) {
      outputValues.add(in.getLong());
      long script = compact(in);
      in.position(in.position() + (int) script);
    }
    stripped.write(raw, startIns, in.position() - startIns);
    int witnessData = -1;
    if (segwit) {
      for (long i = 0; i < nIn; i++) {
        long items = compact(in);
        for (long w = 0; w < items; w++) {
          long len = compact(in);
          if (len > 0 && witnessData < 0) {
            witnessData = in.position();
          }
          in.position(in.position() + (int) len);
        }
      }
    }
    firstWitnessData = witnessData;
    stripped.write(raw, in.position(), 4); // locktime
    if (in.position() + 4 != raw.length) {
      throw new IllegalArgumentException(
          (raw.length - in.position() - 4) + " bytes after the transaction's end");
    }
    txidHex = displayHex(GroundTruth.sha256d(stripped.toByteArray()));
  }

  public long outputSum() {
    return outputValues.stream().mapToLong(Long::longValue).sum();
  }

  public boolean coinbase() {
    return inputs.size() == 1 && inputs.get(0).txidHex().equals("0".repeat(64));
  }

  private static long compact(ByteBuffer in) {
    int first = in.get() & 0xff;
    return switch (first) {
      case 0xfd -> in.getShort() & 0xffff;
      case 0xfe -> in.getInt() & 0xffffffffL;
      case 0xff -> in.getLong();
      default -> first;
    };
  }

  private static void put4(ByteArrayOutputStream out, int v) {
    for (int i = 0; i < 4; i++) {
      out.write((v >>> (8 * i)) & 0xff);
    }
  }

  /** Internal byte order to displayed hex (reversed). */
  public static String displayHex(byte[] internal) {
    byte[] r = new byte[internal.length];
    for (int i = 0; i < r.length; i++) {
      r[i] = internal[internal.length - 1 - i];
    }
    return HexFormat.of().formatHex(r);
  }

  /** Displayed hex to internal byte order. */
  public static byte[] internal(String displayHex) {
    byte[] b = HexFormat.of().parseHex(displayHex);
    byte[] r = new byte[b.length];
    for (int i = 0; i < r.length; i++) {
      r[i] = b[b.length - 1 - i];
    }
    return r;
  }
}
