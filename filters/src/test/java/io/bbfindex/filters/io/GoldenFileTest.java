package io.bbfindex.filters.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.filters.BbfGeometry;
import io.bbfindex.filters.TestKeys;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Golden files pin format versions 1 (mask) and 2 (multiply-shift) and both bit derivations byte
 * for byte: the files in {@code src/test/resources/testdata} were written once by this code;
 * today's code must load them, find every key, and write the very same bytes from the same keys. If
 * this fails, the format or the derivation changed, and every filter already on disk would silently
 * give false negatives: bump the format version or the derivation id instead. (To regenerate
 * deliberately, run {@link #main} with the testdata directory as argument.)
 */
class GoldenFileTest {

  record Golden(String name, BbfGeometry geometry, long salt, int version) {}

  static final Golden[] GOLDEN = {
    new Golden("golden-v1-unsalted-r8-k4-lw32.bbf", BbfGeometry.v1(8, 4, 32), 0, 1),
    new Golden("golden-v1-salted-r4-k8-lw64.bbf", BbfGeometry.v1(4, 8, 64), 0x0123456789ABCDEFL, 1),
    new Golden("golden-v1-unsalted-r2-k16-lw32.bbf", BbfGeometry.v1(2, 16, 32), 0, 1),
    // version 2: group counts that are not powers of two (multiply-shift)
    new Golden("golden-v2-unsalted-r7-k4-lw32.bbf", new BbfGeometry(7, 4, 32), 0, 2),
    new Golden(
        "golden-v2-salted-r5-k8-lw64.bbf", new BbfGeometry(5, 8, 64), 0x0123456789ABCDEFL, 2),
    new Golden("golden-v2-unsalted-r3-k16-lw32.bbf", new BbfGeometry(3, 16, 32), 0, 2),
  };

  static final FilterMetadata META =
      new FilterMetadata(
          FilterKind.TX_BLOCK_FILE,
          7,
          1_048_576,
          TestKeys.sha256d("golden-tip", 1),
          1_700_000_000_000L);

  static byte[] keys() {
    return TestKeys.sha256d("golden", 100);
  }

  @TempDir Path dir;

  @Test
  void goldenFilesLoadAnswerAndAreReproducedByteForByte() throws IOException, URISyntaxException {
    byte[] keys = keys();
    for (Golden golden : GOLDEN) {
      byte[] expected;
      try (InputStream in =
          GoldenFileTest.class.getResourceAsStream("/testdata/" + golden.name())) {
        assertTrue(in != null, "missing golden file " + golden.name());
        expected = in.readAllBytes();
      }
      Path file = dir.resolve(golden.name());
      Files.write(file, expected);
      try (LoadedFilter loaded = FilterFile.load(file)) {
        assertEquals(golden.geometry(), loaded.filter().geometry());
        assertEquals(golden.version(), loaded.formatVersion(), golden.name());
        assertEquals(golden.salt(), loaded.filter().salt());
        assertEquals(META, loaded.metadata());
        assertEquals(100, loaded.filter().count());
        for (int i = 0; i < 100; i++) {
          assertTrue(loaded.filter().mightContain(keys, i * 32), golden.name() + " key " + i);
        }
      }
      byte[] rebuilt =
          FilterFiles.write(
              dir.resolve("rebuilt.bbf"), golden.geometry(), golden.salt(), keys, META);
      assertArrayEquals(expected, rebuilt, golden.name() + " is no longer reproduced");
    }
  }

  /** Regenerates the golden files into the directory given as the only argument. */
  public static void main(String[] args) throws IOException {
    Path out = Path.of(args[0]);
    for (Golden golden : GOLDEN) {
      FilterFiles.write(out.resolve(golden.name()), golden.geometry(), golden.salt(), keys(), META);
    }
  }
}
