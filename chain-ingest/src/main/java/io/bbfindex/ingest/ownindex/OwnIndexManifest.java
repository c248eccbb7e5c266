package io.bbfindex.ingest.ownindex;

import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * Which files make up the own index, written atomically (a temporary file, synced, renamed, the
 * directory synced): the base file, which covers every block with data at or before a watermark
 * position of the blk files, and the part files of the blocks added since (each listing its
 * blocks), newest last. A file the manifest does not name is left over from a build or merge that a
 * crash interrupted, and is deleted. Layout in {@code OWN-INDEX-FORMAT.md}.
 *
 * @param base the base file's name in the index directory
 * @param watermarkFile with {@code watermarkPos}: the base covers the blocks with data whose {@code
 *     (file, dataPos)} is at most this
 * @param tipHash the node's active tip when the manifest was written (a reorg below it re-adds the
 *     blocks it activated, see {@link OwnIndexStore})
 * @param nextSeq the number of the next part or base file
 */
record OwnIndexManifest(
    String base,
    int watermarkFile,
    long watermarkPos,
    byte[] tipHash,
    int tipHeight,
    int nextSeq,
    List<Part> parts) {

  static final String FILE_NAME = "own-txindex.manifest";
  static final int VERSION = 1;
  private static final byte[] MAGIC = "BBFOWNMF".getBytes(StandardCharsets.US_ASCII);

  /** A part file and the hashes (internal order) of the blocks it was built from. */
  record Part(String name, List<byte[]> blocks) {
    Part {
      blocks = List.copyOf(blocks);
    }
  }

  OwnIndexManifest {
    tipHash = tipHash.clone();
    parts = List.copyOf(parts);
  }

  @Override
  public byte[] tipHash() {
    return tipHash.clone();
  }

  OwnIndexManifest withParts(List<Part> newParts, byte[] tip, int height, int seq) {
    return new OwnIndexManifest(base, watermarkFile, watermarkPos, tip, height, seq, newParts);
  }

  /**
   * The manifest in {@code dir}; empty when there is none.
   *
   * @throws OwnIndexCorruptException naming it when it fails its CRC or layout
   */
  static Optional<OwnIndexManifest> read(Path dir) throws IOException {
    Path file = dir.resolve(FILE_NAME);
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    if (bytes.length < MAGIC.length + 8) {
      throw new OwnIndexCorruptException(file, "too short: " + bytes.length + " bytes");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    if ((int) crc.getValue() != b.getInt(bytes.length - 4)) {
      throw new OwnIndexCorruptException(file, "CRC32C mismatch");
    }
    try {
      byte[] magic = new byte[MAGIC.length];
      b.get(magic);
      if (!Arrays.equals(magic, MAGIC)) {
        throw new OwnIndexCorruptException(file, "not an own index manifest (bad magic)");
      }
      int version = b.getInt();
      if (version != VERSION) {
        throw new OwnIndexCorruptException(file, "manifest version " + version + " unsupported");
      }
      String base = name(b, file);
      int wf = b.getInt();
      long wp = b.getLong();
      byte[] tip = new byte[32];
      b.get(tip);
      int tipHeight = b.getInt();
      int nextSeq = b.getInt();
      int count = b.getInt();
      List<Part> parts = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        String name = name(b, file);
        int blocks = b.getInt();
        if (blocks < 0 || (long) blocks * 32 > b.remaining()) {
          throw new OwnIndexCorruptException(file, "part " + name + " lists " + blocks + " blocks");
        }
        List<byte[]> hashes = new ArrayList<>(blocks);
        for (int j = 0; j < blocks; j++) {
          byte[] h = new byte[32];
          b.get(h);
          hashes.add(h);
        }
        parts.add(new Part(name, hashes));
      }
      if (b.remaining() != 4) {
        throw new OwnIndexCorruptException(file, (b.remaining() - 4) + " bytes after the parts");
      }
      return Optional.of(new OwnIndexManifest(base, wf, wp, tip, tipHeight, nextSeq, parts));
    } catch (BufferUnderflowException e) {
      throw new OwnIndexCorruptException(file, "truncated", e);
    }
  }

  private static String name(ByteBuffer b, Path file) throws OwnIndexCorruptException {
    int length = Short.toUnsignedInt(b.getShort());
    byte[] name = new byte[length];
    b.get(name);
    String s = new String(name, StandardCharsets.UTF_8);
    if (!s.startsWith("own-txindex.") || s.contains("/") || s.contains("\\")) {
      throw new OwnIndexCorruptException(file, "names a file that is not the index's: " + s);
    }
    return s;
  }

  /** Writes the manifest into {@code dir}, replacing the old one in one step. */
  void write(Path dir) throws IOException {
    int size = MAGIC.length + 4 + 2 + base.length() + 4 + 8 + 32 + 4 + 4 + 4 + 4;
    for (Part p : parts) {
      size += 2 + p.name().length() + 4 + 32 * p.blocks().size();
    }
    ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    b.put(MAGIC).putInt(VERSION);
    putName(b, base);
    b.putInt(watermarkFile).putLong(watermarkPos).put(tipHash).putInt(tipHeight).putInt(nextSeq);
    b.putInt(parts.size());
    for (Part p : parts) {
      putName(b, p.name());
      b.putInt(p.blocks().size());
      p.blocks().forEach(b::put);
    }
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, b.position());
    b.putInt((int) crc.getValue());
    Path temp = dir.resolve(FILE_NAME + ".tmp");
    try (FileChannel ch =
        FileChannel.open(
            temp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      b.flip();
      while (b.hasRemaining()) {
        ch.write(b);
      }
      ch.force(true);
    }
    Files.move(
        temp,
        dir.resolve(FILE_NAME),
        StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
    syncDirectory(dir);
  }

  /** Makes a rename in {@code dir} durable (where the platform allows opening a directory). */
  static void syncDirectory(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // not every platform syncs a directory; the rename itself is atomic either way
    }
  }

  private static void putName(ByteBuffer b, String name) {
    byte[] n = name.getBytes(StandardCharsets.US_ASCII);
    b.putShort((short) n.length).put(n);
  }
}
