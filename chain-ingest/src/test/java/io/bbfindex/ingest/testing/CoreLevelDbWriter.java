package io.bbfindex.ingest.testing;

import static org.fusesource.leveldbjni.JniDBFactory.factory;

import io.bbfindex.ingest.encoding.CoreVarInt;
import io.bbfindex.ingest.records.BlockStatus;
import io.bbfindex.ingest.records.DiskBlockIndex;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.Options;

/**
 * Adds records to a (copied, test-owned) node LevelDB, as the node itself would. leveldbjni 1.8
 * only knows tables named .sst, so the directory is rebuilt with its .ldb tables renamed, written,
 * and put back in place.
 */
public final class CoreLevelDbWriter {

  private CoreLevelDbWriter() {}

  /**
   * Core's CDiskBlockIndex value of {@code b}, as {@link DiskBlockIndex#decode} reads it: VARINT
   * version, height, status, nTx, then nFile, nDataPos, nUndoPos as the status says, then the
   * header.
   */
  public static byte[] blockIndexValue(DiskBlockIndex b) {
    ByteArrayOutputStream v = new ByteArrayOutputStream();
    v.writeBytes(CoreVarInt.encode(b.dummyVersion()));
    v.writeBytes(CoreVarInt.encode(b.height()));
    v.writeBytes(CoreVarInt.encode(Integer.toUnsignedLong(b.status())));
    v.writeBytes(CoreVarInt.encode(b.txCount()));
    if ((b.status() & (BlockStatus.HAVE_DATA | BlockStatus.HAVE_UNDO)) != 0) {
      v.writeBytes(CoreVarInt.encode(b.file()));
    }
    if ((b.status() & BlockStatus.HAVE_DATA) != 0) {
      v.writeBytes(CoreVarInt.encode(b.dataPos()));
    }
    if ((b.status() & BlockStatus.HAVE_UNDO) != 0) {
      v.writeBytes(CoreVarInt.encode(b.undoPos()));
    }
    v.writeBytes(b.header());
    return v.toByteArray();
  }

  public static void putAll(Path dbDir, Map<byte[], byte[]> puts) throws IOException {
    Path rw = dbDir.resolveSibling(dbDir.getFileName() + ".rw");
    Files.createDirectories(rw);
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dbDir)) {
      for (Path f : files) {
        String name = f.getFileName().toString();
        Files.copy(f, rw.resolve(name.endsWith(".ldb") ? name.replace(".ldb", ".sst") : name));
      }
    }
    try (DB db = factory.open(rw.toFile(), new Options())) {
      for (Map.Entry<byte[], byte[]> e : puts.entrySet()) {
        db.put(e.getKey(), e.getValue());
      }
    }
    try (Stream<Path> s = Files.walk(dbDir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
    Files.move(rw, dbDir);
  }
}
