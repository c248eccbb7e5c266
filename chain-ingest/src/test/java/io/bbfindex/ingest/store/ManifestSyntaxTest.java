package io.bbfindex.ingest.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The hand checks match exactly what the manifest's patterns matched, on chosen and random text.
 */
class ManifestSyntaxTest {

  private static final Pattern FILE_KEY = Pattern.compile("file\\.\\d{5,10}");
  private static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
  private static final Pattern CRC = Pattern.compile("[0-9a-f]{8}");

  @Test
  void agreesWithThePatterns() {
    List<String> texts =
        new ArrayList<>(
            List.of(
                "",
                "file.",
                "file.0000",
                "file.00000",
                "file.0123456789",
                "file.01234567890",
                "File.00000",
                "file_00000",
                "file.0000a",
                "file.0000\u0661", // an Arabic-Indic digit: not \d
                "file.-0001",
                "tx-blk00000.bbf",
                ".hidden",
                "a".repeat(64),
                "a".repeat(65),
                "name with space",
                "naïve",
                "1a2b3c4d",
                "1A2B3C4D",
                "1a2b3c4",
                "1a2b3c4d5",
                "deadbeeg"));
    SplittableRandom rnd = new SplittableRandom(0x5EED);
    String alphabet = "file.0123456789abcdefgxyzABCZ_-. :\u0660\u00e9";
    for (int i = 0; i < 200_000; i++) {
      StringBuilder sb = new StringBuilder(rnd.nextInt(3) == 0 ? "file." : "");
      int len = rnd.nextInt(17);
      for (int k = 0; k < len; k++) {
        sb.append(alphabet.charAt(rnd.nextInt(alphabet.length())));
      }
      texts.add(sb.toString());
    }
    for (String t : texts) {
      assertEquals(FILE_KEY.matcher(t).matches(), ManifestSyntax.isFileKey(t), t);
      assertEquals(FILE_NAME.matcher(t).matches(), ManifestSyntax.isFileName(t), t);
      assertEquals(CRC.matcher(t).matches(), ManifestSyntax.isCrc(t), t);
    }
  }
}
