package io.bbfindex.ingest.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Objects;

/**
 * What a mapped filter file looked like when it was verified: its inode ({@link
 * BasicFileAttributes#fileKey()}), size and modification time. A file changed in place under a
 * mapping (truncated, or a backup copied over it) is a hazard a checksum cannot catch afterwards:
 * pages past a truncation read as zeros (a "no" for a present txid) or fault (SIGBUS), and
 * rewritten pages answer from other bits. The kernel updates the modification time before it
 * changes the data, so a probe followed by an unchanged fingerprint read bits of the verified file.
 *
 * <p>A file replaced by a rename (another inode at the path) is not a change: the mapping keeps the
 * old inode and its verified bytes.
 */
record FileFingerprint(Path path, Object fileKey, long size, FileTime modified) {

  FileFingerprint {
    Objects.requireNonNull(path, "path");
  }

  /** The file's fingerprint now. */
  static FileFingerprint of(Path path) throws IOException {
    BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
    return new FileFingerprint(path, a.fileKey(), a.size(), a.lastModifiedTime());
  }

  /**
   * Null while the file at {@link #path} is this one as it was (or was replaced by a rename), else
   * what changed.
   */
  String change() {
    FileFingerprint now;
    try {
      now = of(path);
    } catch (IOException e) {
      // deleted or unreadable: the mapping still holds the verified inode
      return null;
    }
    if (fileKey != null && !fileKey.equals(now.fileKey)) {
      return null;
    }
    if (size != now.size) {
      return "size " + size + " -> " + now.size + " bytes";
    }
    if (!modified.equals(now.modified)) {
      return "modified in place at " + now.modified;
    }
    return null;
  }
}
