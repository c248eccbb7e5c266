package io.bbfindex.ingest.leveldb;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Tells whether another process holds the lock Bitcoin Core takes on a file: LevelDB's {@code LOCK}
 * and the datadir's {@code .lock} are locked with POSIX {@code fcntl(F_SETLK, F_WRLCK)} while
 * bitcoind runs.
 *
 * <p>The probe opens the file READ-only and asks for a SHARED lock on the whole file ({@link
 * FileChannel#tryLock(long, long, boolean)}, which the JDK maps to {@code fcntl F_RDLCK} on Linux).
 * That conflicts with the node's write lock, modifies nothing (not even mtime) and is released at
 * once. A missing lock file means the node never ran there (or the copy left it out): not locked.
 * The file is never created.
 *
 * <p>Caveat of fcntl locks: they belong to the process, and closing ANY descriptor of the file
 * drops all of the process's locks on it. Harmless here because this process never opens a node's
 * LevelDB directory itself (only private copies), so it holds no lock the probe could drop.
 */
public final class NodeLockProbe {

  private NodeLockProbe() {}

  /** {@code true} if some process holds a conflicting lock on {@code lockFile}. */
  public static boolean isLocked(Path lockFile) throws IOException {
    if (!Files.isRegularFile(lockFile)) {
      return false;
    }
    try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.READ)) {
      FileLock lock = ch.tryLock(0, Long.MAX_VALUE, true);
      if (lock == null) {
        return true;
      }
      lock.release();
      return false;
    } catch (OverlappingFileLockException e) {
      return true; // another channel of this JVM holds it
    } catch (NoSuchFileException e) {
      return false;
    }
  }
}
