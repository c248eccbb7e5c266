package io.bbfindex.ingest.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.ingest.testing.Fixtures;
import io.bbfindex.ingest.testing.Fixtures.Archive;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ArchiveExtractorTest {
  @TempDir Path tmp;

  @Test
  void extractsTheMainnetFixtureWithItsTopFolderStripped() throws IOException {
    int files =
        ArchiveExtractor.extractTarGz(Fixtures.archive(Archive.MAINNET_LDB), tmp.resolve("d"), 1);
    assertTrue(files >= 10, "files: " + files);
    assertTrue(Files.isRegularFile(tmp.resolve("d/blocks/blk00000.dat")));
    assertTrue(Files.isRegularFile(tmp.resolve("d/indexes/txindex/CURRENT")));
    assertEquals(
        16 << 20, Files.size(tmp.resolve("d/blocks/blk00000.dat")), "Core preallocates 16 MiB");
  }

  @Test
  void refusesAnEntryThatClimbsOutOfTheTarget() throws IOException {
    Path evil = tarGz("evil.tar.gz", "top/../../escaped.txt", TarArchiveEntry.LF_NORMAL);
    IOException e =
        assertThrows(
            IOException.class, () -> ArchiveExtractor.extractTarGz(evil, tmp.resolve("out"), 0));
    assertTrue(
        e.getMessage().contains("evil.tar.gz") && e.getMessage().contains("'..'"), e.getMessage());
    assertFalse(Files.exists(tmp.resolve("escaped.txt")));
  }

  @Test
  void keepsAbsolutePathsInsideTheTargetAndRefusesLinks() throws IOException {
    Path absolute = tarGz("abs.tar.gz", "/etc/bbf-absolute-test", TarArchiveEntry.LF_NORMAL);
    try {
      ArchiveExtractor.extractTarGz(absolute, tmp.resolve("a"), 0);
      assertTrue(Files.isRegularFile(tmp.resolve("a/etc/bbf-absolute-test")));
    } catch (IOException refused) {
      assertTrue(refused.getMessage().contains("absolute"), refused.getMessage());
    }
    assertFalse(Files.exists(Path.of("/etc/bbf-absolute-test")));
    Path link = tarGz("link.tar.gz", "top/link", TarArchiveEntry.LF_SYMLINK);
    IOException e =
        assertThrows(
            IOException.class, () -> ArchiveExtractor.extractTarGz(link, tmp.resolve("b"), 1));
    assertTrue(e.getMessage().contains("links"), e.getMessage());
  }

  @Test
  void aTruncatedArchiveFailsLoudly() throws IOException {
    byte[] whole = Files.readAllBytes(Fixtures.archive(Archive.MAINNET_LDB));
    Path cut = tmp.resolve("cut.tar.gz");
    Files.write(cut, java.util.Arrays.copyOf(whole, whole.length / 2));
    assertThrows(IOException.class, () -> ArchiveExtractor.extractTarGz(cut, tmp.resolve("c"), 1));
  }

  private Path tarGz(String name, String entry, byte type) throws IOException {
    Path p = tmp.resolve(name);
    try (OutputStream out = Files.newOutputStream(p);
        TarArchiveOutputStream tar =
            new TarArchiveOutputStream(new GzipCompressorOutputStream(out))) {
      TarArchiveEntry e = new TarArchiveEntry(entry, type, true);
      byte[] data = "x".getBytes(StandardCharsets.US_ASCII);
      if (type == TarArchiveEntry.LF_NORMAL) {
        e.setSize(data.length);
      } else {
        e.setLinkName("/etc/passwd");
      }
      tar.putArchiveEntry(e);
      if (type == TarArchiveEntry.LF_NORMAL) {
        tar.write(data);
      }
      tar.closeArchiveEntry();
    }
    return p;
  }
}
