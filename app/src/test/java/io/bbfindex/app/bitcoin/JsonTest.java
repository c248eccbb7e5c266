package io.bbfindex.app.bitcoin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JsonTest {
  @ParameterizedTest
  @ValueSource(
      longs = {0, 1, 9, 10, 99, 100, 170, 4_294_967_295L, -1, -10, Long.MAX_VALUE, Long.MIN_VALUE})
  void writesLongsLikeLongToString(long v) {
    ByteBuf out = Unpooled.buffer(1);
    try {
      out.writeByte('x');
      Json.writeLong(out, v);
      assertEquals("x" + v, out.toString(StandardCharsets.US_ASCII));
    } finally {
      out.release();
    }
  }
}
