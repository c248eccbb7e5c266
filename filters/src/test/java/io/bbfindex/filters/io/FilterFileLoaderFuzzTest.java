package io.bbfindex.filters.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bbfindex.filters.BbfGeometry;
import io.bbfindex.filters.BlockedBloomFilter;
import io.bbfindex.filters.TestKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fuzz target for {@link FilterFile#load}: seeded random mutations of valid files (bit flips, byte
 * and field overwrites with boundary values, splices between files, truncations, extensions), half
 * of them with both checksums repaired so that the field checks are reached.
 *
 * <p>Property: loading either throws {@link FilterFileException} or yields a filter that answers
 * queries (single and batch agreeing) without any other exception. Runs for {@code
 * -Dbbf.fuzz.seconds} (default 10) with master seed {@code -Dbbf.fuzz.seed}; a failing input is
 * saved under {@code target/fuzz-failures/} and the message names the seed and iteration.
 */
class FilterFileLoaderFuzzTest {

  private static final double SECONDS =
      Double.parseDouble(System.getProperty("bbf.fuzz.seconds", "10"));
  private static final long SEED = Long.getLong("bbf.fuzz.seed", 0xBBF_F022L);

  /** Header field offsets and widths, for structure-aware overwrites. */
  private static final int[][] FIELDS = {
    {8, 4}, {12, 4}, {16, 8}, {24, 8}, {32, 8}, {40, 2}, {42, 2}, {44, 4}, {48, 8}, {56, 8},
    {64, 4}, {68, 4}, {72, 8}, {112, 8}, {120, 4}, {124, 4}
  };

  private static final long[] INTERESTING = {
    0,
    1,
    2,
    3,
    4,
    8,
    16,
    32,
    64,
    127,
    128,
    129,
    192,
    -1,
    -2,
    Integer.MAX_VALUE,
    Integer.MIN_VALUE,
    0xFFFFFFFFL,
    1L << 32,
    (1L << 32) + 1,
    1L << 33,
    Long.MAX_VALUE,
    Long.MIN_VALUE,
    1L << 62
  };

  @TempDir Path dir;

  @Test
  void fuzzLoaderOnlyThrowsFilterFileException() throws IOException {
    List<byte[]> seeds = new ArrayList<>();
    int s = 0;
    for (int[] shape : TestKeys.shapes()) {
      for (long groups : new long[] {1, 2, 8}) {
        long salt = (s++ % 2 == 0) ? 0 : 0xFACEL + s;
        seeds.add(
            FilterFiles.write(
                dir.resolve("seed.bbf"),
                new BbfGeometry(groups, shape[0], shape[1]),
                salt,
                TestKeys.random(s, 5),
                FilterFiles.META));
      }
    }
    byte[] probes = TestKeys.concat(TestKeys.random(99, 64), TestKeys.adversarial(98));
    int probeCount = TestKeys.count(probes);
    Path file = dir.resolve("fuzz.bbf");
    long deadline = System.nanoTime() + (long) (SECONDS * 1e9);
    Map<String, Integer> reasons = new TreeMap<>();
    int loaded = 0;
    long iteration = 0;
    // One open channel, rewritten in place: recreating the file per input costs more than loading.
    try (FileChannel out =
        FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      for (; System.nanoTime() < deadline; iteration++) {
        SplittableRandom rnd = new SplittableRandom(SEED ^ (iteration * 0x9E3779B97F4A7C15L));
        byte[] input = mutate(rnd, seeds);
        final long at = iteration;
        out.write(ByteBuffer.wrap(input), 0);
        out.truncate(input.length);
        try (LoadedFilter lf = FilterFile.load(file)) {
          BlockedBloomFilter f = lf.filter();
          boolean[] batch = new boolean[probeCount];
          f.mightContainBatch(probes, probeCount, batch);
          for (int i = 0; i < probeCount; i++) {
            assertEquals(batch[i], f.mightContain(probes, i * 32), () -> failure(input, at));
          }
          double fill = f.fillRatio();
          double fpr = f.modelledFpr();
          assertTrue(fill >= 0 && fill <= 1 && fpr >= 0 && fpr <= 1, () -> failure(input, at));
          loaded++;
        } catch (FilterFileException e) {
          String problem = e.problem().replaceAll("[-0-9(:].*", "").trim();
          reasons.merge(problem, 1, Integer::sum);
        } catch (AssertionError e) {
          throw e;
        } catch (RuntimeException | Error e) {
          throw new AssertionError(failure(input, at) + ": " + e, e);
        }
      }
    }
    System.out.printf(
        "FilterFile.load fuzz: %d inputs in %.0f s (seed %d): %d loaded, rejected by reason: %s%n",
        iteration, SECONDS, SEED, loaded, reasons);
    assertTrue(iteration > 0);
  }

  private static String failure(byte[] input, long iteration) {
    try {
      Path out = Path.of("target", "fuzz-failures");
      Files.createDirectories(out);
      Path saved = out.resolve("seed-" + SEED + "-iteration-" + iteration + ".bbf");
      Files.write(saved, input);
      return "fuzz failure at -Dbbf.fuzz.seed="
          + SEED
          + " iteration "
          + iteration
          + " (saved "
          + saved.toAbsolutePath()
          + ")";
    } catch (IOException e) {
      return "fuzz failure at -Dbbf.fuzz.seed=" + SEED + " iteration " + iteration;
    }
  }

  private static byte[] mutate(SplittableRandom rnd, List<byte[]> seeds) {
    byte[] data = seeds.get(rnd.nextInt(seeds.size())).clone();
    int mutations = 1 + rnd.nextInt(4);
    for (int m = 0; m < mutations; m++) {
      switch (rnd.nextInt(8)) {
        case 0 -> { // flip one bit
          if (data.length > 0) {
            int bit = rnd.nextInt(data.length * 8);
            data[bit >>> 3] ^= (byte) (1 << (bit & 7));
          }
        }
        case 1 -> { // random byte
          if (data.length > 0) {
            data[rnd.nextInt(data.length)] = (byte) rnd.nextInt(256);
          }
        }
        case 2, 3 -> { // header field := boundary value
          int[] field = FIELDS[rnd.nextInt(FIELDS.length)];
          long value = INTERESTING[rnd.nextInt(INTERESTING.length)];
          if (field[0] + field[1] <= data.length) {
            ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
            switch (field[1]) {
              case 2 -> b.putShort(field[0], (short) value);
              case 4 -> b.putInt(field[0], (int) value);
              default -> b.putLong(field[0], value);
            }
          }
        }
        case 4 -> data = Arrays.copyOf(data, data.length == 0 ? 0 : rnd.nextInt(data.length));
        case 5 -> { // extend
          int extra = 1 + rnd.nextInt(256);
          byte[] longer = Arrays.copyOf(data, data.length + extra);
          if (rnd.nextBoolean()) {
            for (int i = data.length; i < longer.length; i++) {
              longer[i] = (byte) rnd.nextInt(256);
            }
          }
          data = longer;
        }
        case 6 -> { // splice: a prefix of this file and the rest of another
          byte[] other = seeds.get(rnd.nextInt(seeds.size()));
          int cut = rnd.nextInt(Math.min(data.length, other.length) + 1);
          byte[] spliced = Arrays.copyOf(data, other.length);
          System.arraycopy(other, cut, spliced, cut, other.length - cut);
          data = spliced;
        }
        default -> { // overwrite a random range with random bytes
          if (data.length > 0) {
            int from = rnd.nextInt(data.length);
            int to = Math.min(data.length, from + 1 + rnd.nextInt(16));
            for (int i = from; i < to; i++) {
              data[i] = (byte) rnd.nextInt(256);
            }
          }
        }
      }
    }
    if (rnd.nextBoolean()) {
      FilterFiles.fixChecksums(data);
    }
    return data;
  }
}
