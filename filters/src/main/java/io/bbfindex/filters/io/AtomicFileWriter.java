package io.bbfindex.filters.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Replaces a file so that a reader, even after a crash, sees either the old content or the new one,
 * never a mix or a half-written file. Every file this project persists (filter files, a store's
 * manifest) is written this way:
 *
 * <ol>
 *   <li>the content goes to a new temporary file in the target's directory (so the rename below
 *       stays within one file system), named {@code .<target>.<random>.tmp} and created
 *       exclusively, so two writers of the same target never share one;
 *   <li>the temporary file is forced to disk;
 *   <li>it is renamed over the target atomically;
 *   <li>the directory is forced, so the rename itself survives a crash.
 * </ol>
 *
 * If a step before the rename fails, the temporary file is deleted and the target is untouched.
 *
 * <p>Files are created readable and writable by their owner only ({@code 0600}, where the file
 * system has POSIX permissions). WHY: a store's files hold its secret salt (the manifest and every
 * filter's header), which keeps an outsider from crafting txids that all fall into one block of a
 * filter; nobody but the service needs to read them.
 *
 * <p>A process that is shutting down calls {@link #stopWrites} before it removes temporary files: a
 * write in progress could otherwise create its temporary file just after the removal.
 */
public final class AtomicFileWriter {

  /** Held shared by each write in progress and exclusively by {@link #stopWrites}. */
  private static final ReentrantReadWriteLock WRITES = new ReentrantReadWriteLock();

  private static volatile boolean stopped;

  /** Writes a file's whole content to a channel positioned at its start. */
  @FunctionalInterface
  public interface Content {
    /**
     * @throws IOException if the content cannot be written; the target is then left as it was
     */
    void writeTo(FileChannel channel) throws IOException;
  }

  private AtomicFileWriter() {}

  /**
   * Refuses every later write of this process (they fail with an {@link IOException}, leaving no
   * temporary file) and waits for the writes in progress to end, so that the temporary files left
   * afterwards are all orphans. For shutdown hooks; there is no way back.
   *
   * @return whether the writes in progress ended within {@code wait}
   */
  public static boolean stopWrites(Duration wait) throws InterruptedException {
    stopped = true;
    if (!WRITES.writeLock().tryLock(wait.toNanos(), TimeUnit.NANOSECONDS)) {
      return false;
    }
    WRITES.writeLock().unlock();
    return true;
  }

  /**
   * Replaces {@code target} with {@code bytes}.
   *
   * @throws IOException if writing fails; see {@link #write(Path, Content)}
   */
  public static void write(Path target, byte[] bytes) throws IOException {
    Objects.requireNonNull(bytes, "bytes");
    write(target, channel -> writeFully(channel, ByteBuffer.wrap(bytes)));
  }

  /**
   * Replaces {@code target} with what {@code content} writes.
   *
   * @throws IOException if the temporary file cannot be created or written, the file system cannot
   *     rename atomically, or the rename fails: the target is then unchanged and no temporary file
   *     is left. Also if the directory cannot be forced after the rename: the new content is then
   *     in place, but may not survive a crash.
   */
  public static void write(Path target, Content content) throws IOException {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(content, "content");
    Path absolute = target.toAbsolutePath();
    WRITES.readLock().lock();
    try {
      if (stopped) {
        throw new IOException(absolute + " not written: the process is shutting down");
      }
      replace(absolute, content);
    } finally {
      WRITES.readLock().unlock();
    }
  }

  private static void replace(Path absolute, Content content) throws IOException {
    Path dir = absolute.getParent();
    if (dir == null) {
      throw new IOException(absolute + " is a file system root, not a file");
    }
    Path tmp =
        dir.resolve(
            "."
                + absolute.getFileName()
                + "."
                + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong())
                + ".tmp");
    boolean moved = false;
    try {
      try (FileChannel ch = createOwnerOnly(tmp)) {
        content.writeTo(ch);
        ch.force(true);
      } catch (IOException e) {
        // a failed write says only "No space left on device": name the file it was for
        throw e.getClass() == IOException.class
            ? new IOException("writing " + absolute + " failed: " + e.getMessage(), e)
            : e;
      }
      try {
        Files.move(
            tmp, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("cannot replace " + absolute + " atomically: " + e.getMessage(), e);
      }
      moved = true;
      forceDirectory(dir);
    } finally {
      if (!moved) {
        Files.deleteIfExists(tmp);
      }
    }
  }

  /** Creates {@code file} (new) for writing, mode {@code 0600} where permissions are POSIX. */
  private static FileChannel createOwnerOnly(Path file) throws IOException {
    Set<StandardOpenOption> options =
        EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    if (!file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
      return FileChannel.open(file, options);
    }
    return FileChannel.open(file, options, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
  }

  /**
   * Takes the permissions of others away from {@code dir} (where permissions are POSIX): the
   * directory of a store is not world-readable, as its files are not.
   *
   * @throws IOException if the permissions cannot be read or changed
   */
  public static void closeToOthers(Path dir) throws IOException {
    if (!dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
      return;
    }
    Set<PosixFilePermission> perms = EnumSet.copyOf(Files.getPosixFilePermissions(dir));
    if (perms.removeAll(
        EnumSet.of(
            PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE,
            PosixFilePermission.OTHERS_EXECUTE))) {
      Files.setPosixFilePermissions(dir, perms);
    }
  }

  private static final Set<PosixFilePermission> OWNER_ONLY =
      EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

  /**
   * Writes all of {@code buffer} (a channel may write less than asked per call).
   *
   * @throws IOException if the channel fails
   */
  public static void writeFully(FileChannel channel, ByteBuffer buffer) throws IOException {
    while (buffer.hasRemaining()) {
      channel.write(buffer);
    }
  }

  /** Makes the rename durable. Windows cannot open a directory; there the rename still stands. */
  private static void forceDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      if (System.getProperty("os.name", "").startsWith("Windows")) {
        return;
      }
      throw e;
    }
  }
}
