package io.bbfindex.app.eth;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bbfindex.eth.EthAnswer;
import io.bbfindex.eth.EthIndex;
import io.bbfindex.eth.EthStatus;
import io.bbfindex.eth.TxHash;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The Ethereum routes, independent of the HTTP server: {@code GET /v1/eth/tx/{hash}}, {@code POST
 * /v1/eth/tx/lookup} (a JSON array of hashes, answered in order) and {@code GET /v1/eth/status}.
 * Each returns an {@link Reply} (status and JSON body) that the server writes.
 *
 * <p>Answers: 200 {@code {"hash","present":true,"status":"confirmed","blockNumber","blockHash",
 * "transactionIndex","confirmations"}} or {@code "status":"pending"}; 404 {@code
 * {"hash","present":false}}; 400 with a reason for anything but {@code 0x} + 64 hex digits; 503
 * {@code catching_up} for a hash the index does not hold while it is still being built; 503 {@code
 * chain_replaced} for every hash while the node is on another chain than the index (both with
 * {@code Retry-After}).
 */
public final class EthApi {
  /** Largest batch, as for Bitcoin's {@code POST /v1/tx/lookup}. */
  public static final int MAX_BATCH = 10_000;

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonFactory JSON_FACTORY = MAPPER.getFactory();
  private static final HexFormat HEX = HexFormat.of();

  private final EthIndex index;
  private final Counter confirmed;
  private final Counter pending;
  private final Counter absent;

  /**
   * An HTTP status, a JSON body and, for a 503, the seconds after which to ask again ({@code
   * Retry-After}; 0: none).
   */
  public record Reply(int status, byte[] body, long retryAfter) {
    public Reply(int status, byte[] body) {
      this(status, body, 0);
    }
  }

  /**
   * {@code Retry-After} of a 503 {@code catching_up}: the follower polls several times a second.
   */
  static final long CATCHING_UP_RETRY_SECONDS = 1;

  /**
   * {@code Retry-After} of a 503 {@code chain_replaced}: an operator has to act (or the old node
   * come back), so there is no point in asking every second.
   */
  static final long CHAIN_REPLACED_RETRY_SECONDS = 30;

  public EthApi(EthIndex index, MeterRegistry registry) {
    this.index = index;
    this.confirmed = lookups(registry, "confirmed");
    this.pending = lookups(registry, "pending");
    this.absent = lookups(registry, "absent");
  }

  private static Counter lookups(MeterRegistry registry, String outcome) {
    return Counter.builder("bbf.eth.lookups")
        .description("Ethereum transaction lookups by outcome")
        .tag("outcome", outcome)
        .register(registry);
  }

  public EthIndex index() {
    return index;
  }

  /** {@code GET /v1/eth/tx/{hash}} for the hash {@code text}. */
  public Reply tx(String text) {
    String problem = TxHash.problem(text);
    if (problem != null) {
      return error(
          400,
          "malformed_hash",
          "transaction hash must be 0x followed by 64 hex digits: " + problem);
    }
    byte[] key = HEX.parseHex(text, 2, 66);
    try {
      Optional<EthAnswer> a = index.lookup(key, 0);
      StringBuilder out = new StringBuilder(256);
      write(out, key, 0, a);
      return new Reply(
          a.isPresent() ? 200 : 404, out.toString().getBytes(StandardCharsets.US_ASCII));
    } catch (EthIndex.CatchingUpException e) {
      return catchingUp(e);
    }
  }

  /** {@code POST /v1/eth/tx/lookup} with {@code body}, a JSON array of hash strings. */
  public Reply batch(InputStream body) {
    // The hashes' bytes end to end, parsed once: the lookups and the answer read them from here.
    byte[] keys = new byte[64 * TxHash.BYTES];
    int count = 0;
    try (JsonParser parser = JSON_FACTORY.createParser(body)) {
      if (parser.nextToken() != JsonToken.START_ARRAY) {
        return error(
            400, "malformed_body", "the body must be a JSON array of transaction hash strings");
      }
      for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
        if (t != JsonToken.VALUE_STRING) {
          return error(400, "malformed_hash", "hashes[" + count + "] is not a string");
        }
        if (count == MAX_BATCH) {
          return error(
              413,
              "too_many_hashes",
              "at most " + MAX_BATCH + " hashes per request; split the batch");
        }
        String text = parser.getText();
        String problem = TxHash.problem(text);
        if (problem != null) {
          return error(
              400,
              "malformed_hash",
              "hashes[" + count + "] must be 0x followed by 64 hex digits: " + problem);
        }
        if ((count + 1) * TxHash.BYTES > keys.length) {
          keys = Arrays.copyOf(keys, 2 * keys.length);
        }
        System.arraycopy(HEX.parseHex(text, 2, 66), 0, keys, count * TxHash.BYTES, TxHash.BYTES);
        count++;
      }
      if (parser.nextToken() != null) {
        return error(400, "malformed_body", "unexpected content after the JSON array");
      }
    } catch (JsonProcessingException e) {
      return error(400, "malformed_body", "body is not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      return error(400, "malformed_body", "body could not be read: " + e.getMessage());
    }
    StringBuilder out = new StringBuilder(2 + count * 200);
    out.append('[');
    try {
      for (int i = 0; i < count; i++) {
        if (i > 0) {
          out.append(',');
        }
        int offset = i * TxHash.BYTES;
        write(out, keys, offset, index.lookup(keys, offset));
      }
    } catch (EthIndex.CatchingUpException e) {
      return catchingUp(e);
    }
    out.append(']');
    return new Reply(200, out.toString().getBytes(StandardCharsets.US_ASCII));
  }

  /** {@code GET /v1/eth/status}. */
  public Reply status() {
    EthStatus s = index.status();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("rpc", index.nodeUrl());
    body.put("head", s.head());
    body.put("finalized", s.finalized());
    body.put("servedTip", s.servedTip());
    body.put("rangeBlocks", 1L << s.rangeBits());
    body.put("ranges", s.ranges());
    body.put("historyTxs", s.historyTxs());
    body.put("tipBlocks", s.tipBlocks());
    body.put("tipTxs", s.tipTxs());
    body.put("pending", s.pending());
    body.put("reorgs", s.reorgs());
    body.put("caughtUp", s.caughtUp());
    body.put("lastError", index.lastError());
    body.put("chainReplaced", index.chainReplaced());
    body.put("rpcCalls", s.rpcCalls());
    return json(200, body);
  }

  /** The answer for the hash at {@code key[offset .. offset + 32)}, written lower-case. */
  private void write(StringBuilder out, byte[] key, int offset, Optional<EthAnswer> answer) {
    out.append("{\"hash\":\"0x");
    HEX.formatHex(out, key, offset, offset + TxHash.BYTES);
    out.append("\",\"present\":");
    if (answer.isEmpty()) {
      absent.increment();
      out.append("false}");
      return;
    }
    EthAnswer a = answer.get();
    out.append("true,\"status\":\"").append(a.status().label()).append('"');
    if (a.location() != null) { // confirmed: only a confirmed answer has a location
      confirmed.increment();
      out.append(",\"blockNumber\":")
          .append(a.location().blockNumber())
          .append(",\"blockHash\":\"")
          .append(a.location().blockHash().hex())
          .append("\",\"transactionIndex\":")
          .append(a.location().transactionIndex())
          .append(",\"confirmations\":")
          .append(a.confirmations());
    } else {
      pending.increment();
    }
    out.append('}');
  }

  private static Reply catchingUp(EthIndex.CatchingUpException e) {
    Reply refusal =
        e instanceof EthIndex.ChainReplacedException
            ? error(503, "chain_replaced", e.getMessage())
            : error(503, "catching_up", e.getMessage());
    return new Reply(
        refusal.status(),
        refusal.body(),
        e instanceof EthIndex.ChainReplacedException
            ? CHAIN_REPLACED_RETRY_SECONDS
            : CATCHING_UP_RETRY_SECONDS);
  }

  private static Reply error(int status, String error, String detail) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error", error);
    body.put("detail", detail);
    return json(status, body);
  }

  private static Reply json(int status, Object body) {
    try {
      return new Reply(status, MAPPER.writeValueAsBytes(body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise the answer", e);
    }
  }
}
