package io.bbfindex.ingest.archive;

import static io.bbfindex.filters.Arguments.requireArgument;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.jspecify.annotations.Nullable;

/**
 * Extracts a {@code .tar.gz} data-directory archive (the embedded demo, the test fixtures).
 *
 * <p>Only regular files and directories are written; an entry whose path would leave the target
 * directory ("zip slip"), a link, or a device is refused with an {@link IOException} naming the
 * archive and the entry, so a crafted archive cannot write outside the target.
 */
public final class ArchiveExtractor {
  private ArchiveExtractor() {}

  /**
   * Extracts {@code archive} into {@code target} (created if missing), dropping the first {@code
   * stripComponents} path elements of every entry, like {@code tar --strip-components}.
   *
   * @return the number of regular files written
   * @throws IOException on a read error, a corrupt archive or a refused entry
   */
  public static int extractTarGz(Path archive, Path target, int stripComponents)
      throws IOException {
    requireArgument(stripComponents >= 0, "stripComponents must be >= 0", stripComponents);
    Path root = Files.createDirectories(target).toAbsolutePath().normalize();
    int files = 0;
    try (InputStream raw = new BufferedInputStream(Files.newInputStream(archive));
        TarArchiveInputStream tar = new TarArchiveInputStream(new GzipCompressorInputStream(raw))) {
      for (TarArchiveEntry e = tar.getNextEntry(); e != null; e = tar.getNextEntry()) {
        Path relative = strip(archive, e.getName(), stripComponents);
        if (relative == null) {
          continue;
        }
        Path out = root.resolve(relative).normalize();
        if (!out.startsWith(root) || (out.equals(root) && !e.isDirectory())) {
          throw new IOException(
              archive + ": entry '" + e.getName() + "' would be written outside " + root);
        }
        // Check links and devices first: commons-compress reports a symlink entry as isFile().
        if (e.isSymbolicLink()
            || e.isLink()
            || e.isCharacterDevice()
            || e.isBlockDevice()
            || e.isFIFO()) {
          throw new IOException(
              archive
                  + ": entry '"
                  + e.getName()
                  + "' is not a regular file or directory (links and devices are refused)");
        }
        if (e.isDirectory()) {
          Files.createDirectories(out);
        } else {
          Files.createDirectories(out.getParent());
          Files.copy(tar, out, StandardCopyOption.REPLACE_EXISTING);
          files++;
        }
      }
    }
    return files;
  }

  private static @Nullable Path strip(Path archive, String name, int components)
      throws IOException {
    if (name.startsWith("/") || name.contains("\\")) {
      throw new IOException(
          archive + ": entry '" + name + "' has an absolute or non-portable path");
    }
    String[] parts = name.split("/");
    StringBuilder kept = new StringBuilder();
    int skipped = 0;
    for (String part : parts) {
      if (part.isEmpty() || part.equals(".")) {
        continue;
      }
      if (part.equals("..")) {
        throw new IOException(archive + ": entry '" + name + "' contains '..'");
      }
      if (skipped < components) {
        skipped++;
        continue;
      }
      if (!kept.isEmpty()) {
        kept.append('/');
      }
      kept.append(part);
    }
    return kept.isEmpty() ? null : Path.of(kept.toString());
  }
}
