package io.bbfindex.ingest.testing;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * An oracle independent of the code under test: the fixture's {@code txindex.tsv} (txid, file,
 * position, tx offset of every {@code t} record, checked by the fixture's author) joined with the
 * blocks found by scanning the extracted {@code blk?????.dat} files (header hash = SHA-256d of the
 * 80 header bytes, height from the prev-hash links).
 */
public final class GroundTruth {
  /** One block as scanned from a blk file. */
  public record Block(
      String hashHex,
      int height,
      int file,
      long dataPos,
      int nTx,
      byte[] header,
      boolean onActiveChain) {}

  /** One txindex row with its block. */
  public record Tx(String txidHex, int file, long dataPos, long txOffset, Block block) {}

  private final List<Tx> txs;
  private final Map<String, Block> blocksByHash;
  private final int tipHeight;

  private GroundTruth(List<Tx> txs, Map<String, Block> blocksByHash, int tipHeight) {
    this.txs = txs;
    this.blocksByHash = blocksByHash;
    this.tipHeight = tipHeight;
  }

  /**
   * The ground truth of archive {@code a} extracted at {@code datadir}: its txindex table ({@link
   * Fixtures#txRows}) joined with the blocks scanned from the blk files.
   *
   * @throws IOException if a row points at no block header, or the blk files cannot be read
   */
  public static GroundTruth load(Fixtures.Archive a, Path datadir) throws IOException {
    Map<String, Block> byPos = new HashMap<>();
    Map<String, Block> byHash = new HashMap<>();
    int tip = scanBlocks(datadir.resolve("blocks"), byPos, byHash);
    List<Tx> txs = new ArrayList<>();
    for (Fixtures.TxRow row : Fixtures.txRows(a)) {
      Block b = byPos.get(row.file() + ":" + row.pos());
      if (b == null) {
        throw new IOException(
            a.baseName
                + ": row "
                + row.txidHex()
                + " points at no block header ("
                + row.file()
                + ":"
                + row.pos()
                + ")");
      }
      txs.add(new Tx(row.txidHex(), row.file(), row.pos(), row.txOffset(), b));
    }
    return new GroundTruth(List.copyOf(txs), Map.copyOf(byHash), tip);
  }

  public List<Tx> txs() {
    return txs;
  }

  public Map<String, Block> blocks() {
    return blocksByHash;
  }

  public int tipHeight() {
    return tipHeight;
  }

  public Block blockAt(int height) {
    return blocksByHash.values().stream()
        .filter(b -> b.height() == height)
        .findFirst()
        .orElseThrow();
  }

  /**
   * Scans every blk file: records are magic(4) size(4 LE) block(size); stops at a zero magic
   * (padding).
   */
  private static int scanBlocks(Path blocks, Map<String, Block> byPos, Map<String, Block> byHash)
      throws IOException {
    record Raw(String hash, String prev, int file, long pos, int nTx, byte[] header) {}
    List<Raw> raws = new ArrayList<>();
    for (int file = 0; ; file++) {
      Path blk = blocks.resolve(String.format("blk%05d.dat", file));
      if (!Files.exists(blk)) {
        break;
      }
      ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(blk)).order(ByteOrder.LITTLE_ENDIAN);
      while (buf.remaining() >= 8) {
        int magic = buf.getInt(buf.position());
        if (magic == 0) {
          break;
        }
        buf.position(buf.position() + 4);
        int size = buf.getInt();
        long pos = buf.position();
        byte[] header = new byte[80];
        buf.get(header);
        int nTx = compactSize(buf);
        raws.add(
            new Raw(
                Fixtures.displayHex(sha256d(header)),
                Fixtures.displayHex(Arrays.copyOfRange(header, 4, 36)),
                file,
                pos,
                nTx,
                header));
        buf.position((int) pos + size);
      }
    }
    Map<String, Raw> rawByHash = new HashMap<>();
    raws.forEach(r -> rawByHash.put(r.hash(), r));
    Map<String, Integer> heights = new HashMap<>();
    int tip = -1;
    String tipHash = null;
    for (Raw r : raws) {
      int height = 0;
      for (Raw x = r; !x.prev().equals("0".repeat(64)); x = rawByHash.get(x.prev())) {
        if (!rawByHash.containsKey(x.prev())) {
          throw new IOException("block " + x.hash() + " has its parent outside the blk files");
        }
        height++;
      }
      heights.put(r.hash(), height);
      if (height > tip) {
        tip = height;
        tipHash = r.hash();
      }
    }
    int top = tip;
    if (heights.values().stream().filter(h -> h == top).count() > 1) {
      // Equal work at equal height: which tip Core chose is not knowable from the blk files alone.
      throw new IOException(
          "two blocks at the top height " + tip + ": the oracle cannot tell the active chain");
    }
    java.util.Set<String> active = new java.util.HashSet<>();
    for (String h = tipHash; h != null && rawByHash.containsKey(h); h = rawByHash.get(h).prev()) {
      active.add(h);
    }
    for (Raw r : raws) {
      Block b =
          new Block(
              r.hash(),
              heights.get(r.hash()),
              r.file(),
              r.pos(),
              r.nTx(),
              r.header(),
              active.contains(r.hash()));
      byPos.put(r.file() + ":" + r.pos(), b);
      byHash.put(r.hash(), b);
    }
    return tip;
  }

  private static int compactSize(ByteBuffer buf) {
    int first = buf.get() & 0xff;
    return switch (first) {
      case 0xfd -> buf.getShort() & 0xffff;
      case 0xfe -> buf.getInt();
      case 0xff -> Math.toIntExact(buf.getLong());
      default -> first;
    };
  }

  public static byte[] sha256d(byte[] data) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      return sha.digest(sha.digest(data));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("SHA-256 is mandatory in every JDK", e);
    }
  }

  public static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }
}
