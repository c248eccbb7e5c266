package io.bbfindex.ingest.encoding;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

class HashKeysTest {
  private static final String GENESIS =
      "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f";

  @Test
  void displayHexIsTheReverseOfTheInternalBytes() {
    byte[] key = HashKeys.fromDisplayHex("hash", GENESIS);
    // Internal order: the hash's last displayed byte (0x6f) comes first, its leading zeros last.
    assertEquals((byte) 0x6f, key[0]);
    assertEquals(0, key[31]);
    assertEquals(GENESIS, HashKeys.toDisplayHex(key));
  }

  @Test
  void upperAndLowerCaseParseAlike() {
    assertArrayEquals(
        HashKeys.fromDisplayHex("h", GENESIS),
        HashKeys.fromDisplayHex("h", GENESIS.toUpperCase(java.util.Locale.ROOT)));
  }

  @Test
  void roundTripsRandomKeysAgainstTheJdkHexFormat() {
    long seed = 7;
    Random random = new Random(seed);
    for (int i = 0; i < 1_000; i++) {
      byte[] key = new byte[32];
      random.nextBytes(key);
      byte[] reversed = new byte[32];
      for (int j = 0; j < 32; j++) {
        reversed[j] = key[31 - j];
      }
      String display = HexFormat.of().formatHex(reversed);
      assertEquals(display, HashKeys.toDisplayHex(key), "seed " + seed);
      assertArrayEquals(key, HashKeys.fromDisplayHex("k", display), "seed " + seed);
    }
  }

  @Test
  void parsesAtAnOffsetIntoAnOffset() {
    byte[] out = new byte[96];
    assertNull(HashKeys.parseDisplayHex("/v1/tx/" + GENESIS, 7, 7 + 64, out, 32));
    assertEquals((byte) 0x6f, out[32]);
    assertEquals(0, out[0]);
  }

  @Test
  void badInputGetsAReasonAndNeverEchoesTheInput() {
    byte[] out = new byte[32];
    assertEquals(
        "got 63 characters", HashKeys.parseDisplayHex(GENESIS.substring(1), 0, 63, out, 0));
    assertEquals(
        "character 5 is not a hex digit",
        HashKeys.parseDisplayHex("00000g" + GENESIS.substring(6), 0, 64, out, 0));
    assertEquals(
        "character 0 is not a hex digit",
        HashKeys.parseDisplayHex("\u0660" + GENESIS.substring(1), 0, 64, out, 0));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> HashKeys.fromDisplayHex("txid", "zz"));
    assertEquals("txid must be 64 hex characters: got 2 characters", e.getMessage());
  }
}
