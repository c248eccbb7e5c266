package io.bbfindex.app.workdir;

import io.bbfindex.ingest.Scratch;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * Per-process directories for private snapshots under a work directory, which a process killed with
 * {@code kill -9} cannot delete itself: each claimed directory holds a {@code lock} file that its
 * process keeps locked (an OS lock, released by the kernel when the process dies, whatever kills
 * it), so a later process can tell a stale directory (lock free: delete it) from one in use by a
 * live process (lock held: leave it). A JVM that exits normally or on SIGTERM deletes its own by a
 * shutdown hook.
 *
 * <p>Reusable by any command that snapshots into {@code --work}; only directories named with {@link
 * #PREFIX} are ever touched.
 */
public final class SnapshotDirectories {
  private static final System.Logger LOG = System.getLogger(SnapshotDirectories.class.getName());

  /** Name prefix of claimed directories (nothing else in the work directory is touched). */
  public static final String PREFIX = "snapshots-";

  static final String LOCK_FILE = "lock";

  private SnapshotDirectories() {}

  /**
   * Deletes every claimed directory under {@code work} whose lock no live process holds.
   *
   * @return the directories deleted
   */
  public static List<Path> removeStale(Path work) throws IOException {
    List<Path> removed = new ArrayList<>();
    if (!Files.isDirectory(work)) {
      return removed;
    }
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(work, PREFIX + "*")) {
      for (Path dir : dirs) {
        if (Files.isDirectory(dir) && !held(dir)) {
          deleteTree(dir);
          removed.add(dir);
        }
      }
    }
    return removed;
  }

  /**
   * Creates a new directory under {@code work} and holds its lock until {@link Claim#close} (or the
   * JVM's exit, when a shutdown hook deletes it).
   */
  public static Claim claim(Path work) throws IOException {
    Files.createDirectories(work);
    Path dir = Files.createTempDirectory(work.toAbsolutePath(), PREFIX);
    FileChannel channel =
        FileChannel.open(
            dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.lock();
    } catch (IOException | RuntimeException e) {
      channel.close();
      deleteTree(dir);
      throw e;
    }
    return new Claim(dir, channel, lock);
  }

  /** Whether a live process (this one included) holds {@code dir}'s lock. */
  private static boolean held(Path dir) throws IOException {
    Path lockFile = dir.resolve(LOCK_FILE);
    if (!Files.exists(lockFile)) {
      // being created (the lock follows the directory within microseconds), or not ours: a
      // directory without a lock is only stale once old
      return Files.getLastModifiedTime(dir).toMillis() > System.currentTimeMillis() - 60_000;
    }
    try (FileChannel c = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
      FileLock l = c.tryLock();
      if (l == null) {
        return true; // another process
      }
      l.release();
      return false;
    } catch (OverlappingFileLockException e) {
      return true; // this JVM holds it
    } catch (NoSuchFileException e) {
      return false; // its owner deleted it meanwhile
    }
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Files.deleteIfExists(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
            if (e instanceof NoSuchFileException) {
              return FileVisitResult.CONTINUE; // deleted meanwhile (e.g. by NodeIndex's close)
            }
            throw e;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            Files.deleteIfExists(dir);
            return FileVisitResult.CONTINUE;
          }
        });
  }

  /** A claimed directory: held until closed, deleted on close or at the JVM's exit. */
  public static final class Claim implements AutoCloseable {
    private final Path dir;
    private final FileChannel channel;
    private final FileLock lock;
    private final Thread hook;
    private boolean closed;

    Claim(Path dir, FileChannel channel, FileLock lock) {
      this.dir = dir;
      this.channel = channel;
      this.lock = lock;
      this.hook = Thread.ofPlatform().unstarted(this::deleteQuietly);
      Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Where this process puts its snapshots. */
    public Path dir() {
      return dir;
    }

    /** Releases the lock and deletes the directory with everything in it. Idempotent. */
    @Override
    public synchronized void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // the JVM is shutting down: the hook runs (or ran) this anyway
      }
      try {
        lock.release();
        channel.close();
      } finally {
        // at exit the NodeIndex inside has its own hook, running at the same time and renaming
        // its snapshot away: delete until the tree is gone, not in one walk that it can outrun
        if (!Scratch.deleteUntilGone(dir, Scratch.EXIT_CLEANUP_PATIENCE)) {
          throw new IOException("could not remove " + dir);
        }
      }
    }

    private void deleteQuietly() {
      try {
        close();
      } catch (IOException e) {
        LOG.log(Level.WARNING, "could not delete " + dir + ": " + e);
      }
    }
  }
}
