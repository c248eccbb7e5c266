package io.bbfindex.ingest.chain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Compact targets against the vectors of Core's {@code arith_uint256_tests.cpp}
 * (bignum_SetCompact).
 */
class ChainWorkTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "00000000, 0",
    "00123456, 0",
    "01003456, 0",
    "02000056, 0",
    "03000000, 0",
    "04000000, 0",
    "00923456, 0",
    "01803456, 0",
    "02800056, 0",
    "03800000, 0",
    "04800000, 0",
    "01123456, 12",
    "01fedcba, -7e",
    "02123456, 1234",
    "03123456, 123456",
    "04123456, 12345600",
    "04923456, -12345600",
    "05009234, 92340000",
    "20123456, 1234560000000000000000000000000000000000000000000000000000000000",
  })
  void compactTargetsDecodeAsCoreDoes(String nBits, String targetHex) {
    assertEquals(new BigInteger(targetHex, 16), ChainWork.compactTarget(Long.parseLong(nBits, 16)));
  }

  @Test
  void anOverflowingTargetIsLongerThan256Bits() {
    assertTrue(ChainWork.compactTarget(0xff123456L).bitLength() > 256);
  }

  @Test
  void aHashMeetsATargetAsALittleEndianNumber() {
    byte[] hash = new byte[32];
    hash[0] = 0x01; // internal byte 0 is the least significant: the number 1
    assertTrue(ChainWork.meetsTarget(hash, 0x01010000L)); // target 1
    hash[31] = 0x01; // now 2^248 + 1
    assertFalse(ChainWork.meetsTarget(hash, 0x1d00ffffL));
    assertTrue(ChainWork.meetsTarget(hash, 0x2100ffffL));
  }
}
