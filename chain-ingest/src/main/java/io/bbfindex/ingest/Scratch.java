package io.bbfindex.ingest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Scratch files that a process killed mid-work would leak forever: the private LevelDB snapshots in
 * the work directory ({@value #SNAPSHOT_PREFIX}*: a full copy of the txindex when the work
 * directory is on another file system, else hard links that pin the node's compacted-away tables)
 * and the temporary files of an interrupted filter write ({@code .<name>.<random>.tmp}).
 *
 * <p>A snapshot directory is owned through an exclusive lock on its {@value #OWNER_LOCK}, held for
 * the snapshot's life: the kernel drops it when the owner dies, even by {@code kill -9}, so a
 * directory whose lock can be taken is stale and one whose lock is held is in use (a pid file could
 * name a recycled pid). A shutdown hook ({@link #onExit}) removes what a SIGTERM or Ctrl-C
 * interrupts.
 */
public final class Scratch {
  /** Name prefix of a snapshot directory in the work directory. */
  public static final String SNAPSHOT_PREFIX = "node-snapshot-";

  /** The lock file inside a snapshot directory, locked by its owner. */
  public static final String OWNER_LOCK = "owner.lock";

  /** Appended to a snapshot directory's name by {@link #deleteUntilGone} before it deletes it. */
  static final String DELETING_SUFFIX = "-deleting";

  /** How long a shutdown hook waits for the work it interrupts to let go of its scratch files. */
  public static final Duration EXIT_CLEANUP_PATIENCE = Duration.ofSeconds(10);

  /** A snapshot directory without its lock file is stale only once this old (ms). */
  private static final long UNLOCKED_GRACE_MS = 60_000;

  private static final System.Logger LOG = System.getLogger(Scratch.class.getName());

  private Scratch() {}

  /** A registered shutdown hook; {@link #close} unregisters it. */
  @FunctionalInterface
  public interface ExitHook extends AutoCloseable {
    @Override
    void close();
  }

  /** A fresh snapshot directory and the lock that owns it; closing releases the lock. */
  public record OwnedDir(Path dir, FileChannel lockChannel) implements AutoCloseable {
    @Override
    public void close() throws IOException {
      lockChannel.close();
    }
  }

  /** Creates a snapshot directory under {@code work} and takes its lock. */
  public static OwnedDir createSnapshotDir(Path work) throws IOException {
    Path dir = Files.createTempDirectory(work, SNAPSHOT_PREFIX);
    FileChannel ch =
        FileChannel.open(
            dir.resolve(OWNER_LOCK), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    try {
      ch.lock();
      // written once locked: an empty lock file is one whose owner has not locked it yet
      ch.write(
          java.nio.ByteBuffer.wrap(
              (ProcessHandle.current().pid() + "\n")
                  .getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
    return new OwnedDir(dir, ch);
  }

  /**
   * Deletes the snapshot directories under {@code work} whose owner is gone.
   *
   * @return the directories deleted
   */
  public static List<Path> removeStaleSnapshots(Path work) throws IOException {
    List<Path> removed = new ArrayList<>();
    if (!Files.isDirectory(work)) {
      return removed;
    }
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(work, SNAPSHOT_PREFIX + "*")) {
      for (Path dir : dirs) {
        if (Files.isDirectory(dir) && stale(dir)) {
          NodeIndex.deleteTree(dir);
          removed.add(dir);
        }
      }
    }
    if (!removed.isEmpty()) {
      LOG.log(System.Logger.Level.INFO, "removed stale snapshot(s) of killed runs: " + removed);
    }
    return removed;
  }

  private static boolean stale(Path dir) throws IOException {
    Path lockFile = dir.resolve(OWNER_LOCK);
    if (!Files.exists(lockFile)) {
      // from before owner locks, or an owner between creating the directory and its lock
      return ageMillis(dir) > UNLOCKED_GRACE_MS;
    }
    try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
      FileLock lock = ch.tryLock();
      if (lock == null) {
        return false; // another live process owns it
      }
      lock.release();
      // an empty one may be a live owner's between creating and locking it
      return ch.size() > 0 || ageMillis(lockFile) > UNLOCKED_GRACE_MS;
    } catch (OverlappingFileLockException ownedHere) {
      return false; // a NodeIndex of this JVM owns it
    }
  }

  private static long ageMillis(Path p) throws IOException {
    return System.currentTimeMillis() - Files.getLastModifiedTime(p).toMillis();
  }

  /**
   * Deletes the temporary files of interrupted writes ({@code .*.tmp}) in {@code storeDir}. Only
   * for the holder of the store's build lock, whose own writes are the only ones possible.
   *
   * @return the files deleted
   */
  public static List<Path> removeTempFiles(Path storeDir) throws IOException {
    List<Path> removed = new ArrayList<>();
    if (!Files.isDirectory(storeDir)) {
      return removed;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(storeDir, ".*.tmp")) {
      for (Path f : files) {
        if (Files.isRegularFile(f) && Files.deleteIfExists(f)) {
          removed.add(f);
        }
      }
    }
    return removed;
  }

  /**
   * Deletes {@code root} with everything in it while a thread may still be working in it (the JVM
   * runs shutdown hooks while its other threads go on). {@code root} is first renamed to a sibling
   * (still named as a snapshot, so a next run removes it if this process dies first): the worker
   * addresses its files by path under the old name, so from then on it can create nothing more in
   * the tree, which is then deleted again and again for up to {@code patience} until a pass finds
   * no entry a file the worker had already opened added.
   *
   * @return whether the tree is gone
   */
  public static boolean deleteUntilGone(Path root, Duration patience) {
    long deadline = System.nanoTime() + patience.toNanos();
    IOException last = null;
    Path tree = root.resolveSibling(root.getFileName() + DELETING_SUFFIX);
    try {
      Files.move(root, tree, StandardCopyOption.ATOMIC_MOVE);
    } catch (NoSuchFileException gone) {
      return true;
    } catch (IOException e) {
      last = e; // not renamable: delete it where it is
      tree = root;
    }
    while (Files.exists(tree, LinkOption.NOFOLLOW_LINKS)) {
      try {
        NodeIndex.deleteTree(tree);
      } catch (IOException | UncheckedIOException e) {
        last = e instanceof UncheckedIOException u ? u.getCause() : (IOException) e;
      }
      if (System.nanoTime() > deadline) {
        System.err.println(
            "bbf-index: could not remove " + tree + (last == null ? "" : ": " + last));
        return false;
      }
      LockSupport.parkNanos(5_000_000);
    }
    return true;
  }

  /**
   * Runs {@code cleanup} if the JVM exits (SIGTERM, Ctrl-C, System.exit) before the returned handle
   * is closed; closing it (the normal end of the work) unregisters the hook.
   */
  public static ExitHook onExit(String name, Runnable cleanup) {
    Thread hook = new Thread(cleanup, name);
    try {
      Runtime.getRuntime().addShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      return () -> {};
    }
    return () -> {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running or ran: nothing to unregister
      }
    };
  }
}
