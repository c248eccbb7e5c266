package io.bbfindex.ingest.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a store file looked like when it was verified: its inode ({@link
 * BasicFileAttributes#fileKey()}), size and modification time. Lookups answer from verified
 * in-memory copies, so a file changed since cannot make an answer wrong; the fingerprint tells that
 * the store on disk is no longer the one verified (truncated, rewritten in place, a backup copied
 * over it, deleted), so that it is verified again. The kernel updates the modification time of a
 * file written in place; a stat costs about a microsecond. A file replaced by a rename is not a
 * change: that is how the builder writes.
 */
record FileFingerprint(Path path, @Nullable Object fileKey, long size, FileTime modified) {

  FileFingerprint {
    Objects.requireNonNull(path, "path");
  }

  /** The file's fingerprint now. */
  static FileFingerprint of(Path path) throws IOException {
    BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
    return new FileFingerprint(path, a.fileKey(), a.size(), a.lastModifiedTime());
  }

  /**
   * Whether the file at {@link #path} is still this very file, untouched: same inode, size and
   * modification time. Stricter than {@link #change}, which accepts a replacement by rename: what
   * lets a reader that parsed this file skip parsing it again (a file renamed over it was written
   * as a new inode while this one still existed, so it never shares its key).
   */
  boolean unchanged() {
    try {
      FileFingerprint now = of(path);
      return fileKey != null
          && fileKey.equals(now.fileKey)
          && size == now.size
          && modified.equals(now.modified);
    } catch (IOException e) {
      return false;
    }
  }

  /** Null while the file at {@link #path} is this one as it was, else what changed. */
  @Nullable String change() {
    FileFingerprint now;
    try {
      now = of(path);
    } catch (IOException e) {
      return "missing or unreadable (" + e + ")";
    }
    if (fileKey != null && !fileKey.equals(now.fileKey)) {
      // replaced by a rename: how the builder writes every file (a concurrent ingest, or follow's
      // history refresh, which rebuilds the store under the backend it is about to replace and
      // opens its own): not a change to re-verify, the copy served is the verified one either way
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
