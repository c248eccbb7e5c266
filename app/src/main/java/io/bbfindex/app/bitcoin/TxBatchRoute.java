package io.bbfindex.app.bitcoin;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.bbfindex.app.lookup.LookupService;
import io.bbfindex.app.lookup.TxAnswer;
import io.bbfindex.app.metrics.Metrics;
import io.bbfindex.app.route.Refusal;
import io.bbfindex.app.route.Responses;
import io.bbfindex.app.route.RouteRequest;
import io.bbfindex.ingest.encoding.HashKeys;
import io.micrometer.core.instrument.Timer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.AsciiString;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * {@code POST /v1/tx/lookup} in its two forms, chosen by the request's {@code Content-Type}:
 *
 * <ul>
 *   <li>JSON (any other type): an array of display-hex txid strings in, an array of answer objects
 *       out, as {@code GET /v1/tx/{txid}} writes them;
 *   <li>binary ({@code application/octet-stream}): txids as raw 32-byte values back to back in
 *       internal byte order (as SHA-256d outputs them and Bitcoin's wire format and Core's REST
 *       {@code .bin} carry them: the reverse of the display hex) in, one status byte per txid out
 *       (see {@link #STATUS_ABSENT} ff.). No hex, no text: a batch costs a copy, the filter probes
 *       and the index reads of the "maybe"s.
 * </ul>
 *
 * <p>Either way the keys are packed into one flat array and probed in one batch call, and the time
 * of each phase (parse, filter probe, index reads, write) is recorded in {@code
 * bbf_http_batch_phase_seconds{form, phase}}, so the split is measured where it happens.
 */
public final class TxBatchRoute {
  /** Largest number of txids {@code POST /v1/tx/lookup} accepts in one request. */
  public static final int MAX_BATCH = 10_000;

  /** The binary form's content type, of requests and answers. */
  static final AsciiString OCTET_STREAM = AsciiString.cached("application/octet-stream");

  /** Binary answer byte: unknown (the filter or the index says no). */
  public static final byte STATUS_ABSENT = 0;

  /** Binary answer byte: in a block of the active chain. */
  public static final byte STATUS_CONFIRMED = 1;

  /** Binary answer byte: only in a block off the active chain. */
  public static final byte STATUS_STALE = 2;

  /** Binary answer byte: in the followed node's mempool. */
  public static final byte STATUS_MEMPOOL = 3;

  private static final JsonFactory JSON_FACTORY = new JsonFactory();

  /** Scratch for hex digits, one per event-loop thread (route instances are shared). */
  private static final ThreadLocal<byte[]> HEX_SCRATCH =
      ThreadLocal.withInitial(() -> new byte[HashKeys.HEX_CHARS]);

  /**
   * The keys of the batch in progress, one array of the largest batch per event-loop thread. WHY: a
   * fresh 320 KB array per full batch is 230 MB/s of garbage at 700 batches/s, zeroed on allocation
   * and collected soon after; no key outlives its request (the index reads copy the "maybe"s they
   * look up).
   */
  private static final ThreadLocal<byte[]> KEYS =
      ThreadLocal.withInitial(() -> new byte[MAX_BATCH * HashKeys.KEY_BYTES]);

  private final LookupService lookups;
  private final Phases json;
  private final Phases binary;

  TxBatchRoute(LookupService lookups, Metrics metrics) {
    this.lookups = lookups;
    this.json = new Phases(metrics, "json");
    this.binary = new Phases(metrics, "binary");
  }

  /** The timers of one form. */
  private record Phases(Timer parse, Timer probe, Timer read, Timer write) {
    Phases(Metrics metrics, String form) {
      this(
          metrics.batchPhaseTimer(form, "parse"),
          metrics.batchPhaseTimer(form, "probe"),
          metrics.batchPhaseTimer(form, "read"),
          metrics.batchPhaseTimer(form, "write"));
    }
  }

  FullHttpResponse answer(RouteRequest request) {
    ChannelHandlerContext ctx = request.ctx();
    ByteBuf content = request.http().content();
    return isBinary(request.http()) ? binary(ctx, content) : json(ctx, content);
  }

  private static boolean isBinary(FullHttpRequest request) {
    CharSequence type = HttpUtil.getMimeType(request);
    return type != null && OCTET_STREAM.contentEqualsIgnoreCase(type);
  }

  private FullHttpResponse binary(ChannelHandlerContext ctx, ByteBuf content) {
    long t0 = System.nanoTime();
    int bytes = content.readableBytes();
    if (bytes % HashKeys.KEY_BYTES != 0) {
      throw new Refusal.Exception(
          Refusal.badRequest(
              "malformed_body",
              "an application/octet-stream body is txids of 32 bytes each; got "
                  + bytes
                  + " bytes, not a multiple of 32"));
    }
    int count = bytes / HashKeys.KEY_BYTES;
    requireWithinLimit(count);
    byte[] keys = KEYS.get();
    content.getBytes(content.readerIndex(), keys, 0, bytes);
    long t1 = System.nanoTime();
    long[] maybe = lookups.probeBatch(keys, count);
    long t2 = System.nanoTime();
    @Nullable TxAnswer[] answers = lookups.confirmMaybes(keys, count, maybe);
    long t3 = System.nanoTime();
    ByteBuf body = ctx.alloc().buffer(count);
    for (TxAnswer a : answers) {
      body.writeByte(status(a));
    }
    FullHttpResponse response = Responses.response(HttpResponseStatus.OK, OCTET_STREAM, body);
    record(binary, t0, t1, t2, t3, System.nanoTime());
    return response;
  }

  private static byte status(@Nullable TxAnswer a) {
    if (a == null) {
      return STATUS_ABSENT;
    }
    return switch (a.status()) {
      case CONFIRMED -> STATUS_CONFIRMED;
      case STALE -> STATUS_STALE;
      case MEMPOOL -> STATUS_MEMPOOL;
    };
  }

  /**
   * The JSON form. The body is streamed with Jackson's parser, each string read from the parser's
   * own character buffer (no String per id), the keys packed into one flat array; the parse stops
   * at the first bad element or past the limit.
   */
  private FullHttpResponse json(ChannelHandlerContext ctx, ByteBuf content) {
    long t0 = System.nanoTime();
    byte[] keys = KEYS.get();
    int count = 0;
    CharArrayView text = new CharArrayView();
    try (JsonParser parser =
        JSON_FACTORY.createParser(
            (java.io.InputStream) new ByteBufInputStream(content.duplicate()))) {
      if (parser.nextToken() != JsonToken.START_ARRAY) {
        throw notAnArray();
      }
      for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
        if (t == null) {
          throw notAnArray();
        }
        if (t != JsonToken.VALUE_STRING) {
          throw new Refusal.Exception(
              Refusal.badRequest(
                  "malformed_txid",
                  "txids["
                      + count
                      + "] is not a string; the body must be a JSON array of txid strings"));
        }
        requireWithinLimit(count + 1);
        text.set(parser.getTextCharacters(), parser.getTextOffset(), parser.getTextLength());
        String problem =
            HashKeys.parseDisplayHex(text, 0, text.length(), keys, count * HashKeys.KEY_BYTES);
        if (problem != null) {
          throw new Refusal.Exception(
              Refusal.badRequest(
                  "malformed_txid", "txids[" + count + "] must be 64 hex characters: " + problem));
        }
        count++;
      }
      if (parser.nextToken() != null) {
        throw new Refusal.Exception(
            Refusal.badRequest("malformed_body", "unexpected content after the JSON array"));
      }
    } catch (JsonProcessingException e) {
      throw new Refusal.Exception(
          Refusal.badRequest(
              "malformed_body", "body is not valid JSON: " + e.getOriginalMessage()));
    } catch (IOException e) {
      // Reading a ByteBuf cannot fail with I/O; treat it like malformed input rather than a 500.
      throw new Refusal.Exception(
          Refusal.badRequest("malformed_body", "body could not be read: " + e.getMessage()));
    }
    long t1 = System.nanoTime();
    long[] maybe = lookups.probeBatch(keys, count);
    long t2 = System.nanoTime();
    @Nullable TxAnswer[] answers = lookups.confirmMaybes(keys, count, maybe);
    long t3 = System.nanoTime();
    ByteBuf body = ctx.alloc().buffer(2 + count * (Json.MAX_TX_ANSWER_BYTES + 1));
    byte[] scratch = HEX_SCRATCH.get();
    body.writeByte('[');
    for (int i = 0; i < count; i++) {
      if (i > 0) {
        body.writeByte(',');
      }
      Json.writeTx(body, keys, i * HashKeys.KEY_BYTES, answers[i], scratch);
    }
    body.writeByte(']');
    FullHttpResponse response =
        Responses.response(HttpResponseStatus.OK, Responses.APPLICATION_JSON, body);
    record(json, t0, t1, t2, t3, System.nanoTime());
    return response;
  }

  private static void requireWithinLimit(int count) {
    if (count > MAX_BATCH) {
      throw new Refusal.Exception(
          new Refusal(
              HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
              "too_many_txids",
              "at most " + MAX_BATCH + " txids per request; split the batch"));
    }
  }

  private static void record(Phases p, long t0, long t1, long t2, long t3, long t4) {
    p.parse().record(t1 - t0, TimeUnit.NANOSECONDS);
    p.probe().record(t2 - t1, TimeUnit.NANOSECONDS);
    p.read().record(t3 - t2, TimeUnit.NANOSECONDS);
    p.write().record(t4 - t3, TimeUnit.NANOSECONDS);
  }

  private static Refusal.Exception notAnArray() {
    return new Refusal.Exception(
        Refusal.badRequest("malformed_body", "the body must be a JSON array of txid strings"));
  }

  /**
   * A reusable read-only view of a slice of a {@code char[]}: hands the parser's buffer to {@link
   * HashKeys#parseDisplayHex} without copying it into a String.
   */
  private static final class CharArrayView implements CharSequence {
    private char[] chars = new char[0];
    private int offset;
    private int length;

    void set(char[] chars, int offset, int length) {
      this.chars = chars;
      this.offset = offset;
      this.length = length;
    }

    @Override
    public int length() {
      return length;
    }

    @Override
    public char charAt(int index) {
      return chars[offset + index];
    }

    @Override
    public CharSequence subSequence(int start, int end) {
      return new String(chars, offset + start, end - start);
    }

    @Override
    public String toString() {
      return new String(chars, offset, length);
    }
  }
}
