package io.bbfindex.eth;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.RequestBody;
import okhttp3.ResponseBody;
import org.web3j.protocol.ObjectMapperFactory;
import org.web3j.protocol.core.Request;
import org.web3j.protocol.core.Response;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Sends a JSON-RPC batch built from web3j requests and pairs every answer with its request by id.
 *
 * <p>WHY not web3j's own {@code BatchRequest}: it pairs answers with requests by position, but
 * servers may answer a batch in any order (JSON-RPC 2.0 allows it; Erigon does), and geth answers
 * an oversized batch with one error object. Here every answer must carry the id of exactly one
 * request of the batch, each id exactly once, and an error answer fails the whole batch, so a
 * reordered batch is re-matched and a malformed one refused, never misread as another block.
 */
final class JsonRpcBatch {
  private static final MediaType JSON = MediaType.get("application/json; charset=utf-8");
  private static final ObjectMapper MAPPER = ObjectMapperFactory.getObjectMapper();

  private final OkHttpClient http;
  private final String url;

  /** What error messages name: no user info, path or query (they may hold an API key). */
  private final String shownUrl;

  private final long maxResponseBytes;

  /**
   * @param maxResponseBytes larger answers are refused ({@link ResponseTooLargeException}) before
   *     being parsed, so the caller can retry with a smaller batch
   */
  JsonRpcBatch(OkHttpClient http, String url, String shownUrl, long maxResponseBytes) {
    this.http = http;
    this.url = url;
    this.shownUrl = shownUrl;
    this.maxResponseBytes = maxResponseBytes;
  }

  /** The answer was larger than the limit; retry with fewer calls. */
  static final class ResponseTooLargeException extends EthRpcException {
    ResponseTooLargeException(String message) {
      super(message);
    }
  }

  /** The answers and the size of the response body they came in. */
  record Result<T>(List<T> answers, long responseBytes) {}

  /**
   * Sends {@code requests} (distinct ids) as one batch.
   *
   * @return the answers in the order of {@code requests}
   * @throws EthRpcException on a transport failure, a non-200 status, a body that is not an array
   *     of one answer per request (an error object for the whole batch, a missing, unknown or
   *     repeated id, too few or too many answers) or any answer that is an error
   */
  <T extends Response<?>> Result<T> send(List<? extends Request<?, T>> requests, Class<T> type)
      throws EthRpcException {
    Map<Long, Integer> positionOfId = new HashMap<>();
    for (int i = 0; i < requests.size(); i++) {
      if (positionOfId.put(requests.get(i).getId(), i) != null) {
        throw new IllegalArgumentException(
            "request id " + requests.get(i).getId() + " appears twice in the batch");
      }
    }
    byte[] body = post(MAPPER.writeValueAsBytes(requests), requests.size());
    JsonNode root;
    try {
      root = MAPPER.readTree(body);
    } catch (JacksonException e) {
      throw new EthRpcException(
          "answer to a batch of "
              + requests.size()
              + " calls is not JSON: "
              + e.getOriginalMessage(),
          e);
    }
    if (root != null && root.isObject()) {
      throw new EthRpcException(
          "node answered a batch of "
              + requests.size()
              + " calls with one object, not an array: "
              + abbreviate(root.toString()));
    }
    if (root == null || !root.isArray()) {
      throw new EthRpcException(
          "answer to a batch of " + requests.size() + " calls is not a JSON array");
    }
    if (root.size() != requests.size()) {
      throw new EthRpcException(
          "batch of " + requests.size() + " calls answered with " + root.size() + " answers");
    }
    List<T> answers = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      answers.add(null);
    }
    for (int i = 0; i < root.size(); i++) {
      JsonNode answer = root.get(i);
      JsonNode id = answer.get("id");
      if (id == null || !id.isIntegralNumber()) {
        throw new EthRpcException(
            "answer " + i + " of a batch has no numeric id: " + abbreviate(answer.toString()));
      }
      Integer position = positionOfId.get(id.asLong());
      if (position == null) {
        throw new EthRpcException(
            "answer "
                + i
                + " of a batch has id "
                + id.asLong()
                + ", which no request of the batch has");
      }
      if (answers.get(position) != null) {
        throw new EthRpcException("id " + id.asLong() + " is answered twice in one batch");
      }
      T parsed;
      try {
        parsed = MAPPER.treeToValue(answer, type);
      } catch (JacksonException e) {
        throw new EthRpcException(
            "answer to "
                + requests.get(position).getMethod()
                + " (id "
                + id.asLong()
                + ") cannot be read: "
                + e.getOriginalMessage(),
            e);
      }
      if (parsed.hasError()) {
        Response.Error error = parsed.getError();
        throw new EthRpcException(
            requests.get(position).getMethod()
                + " "
                + requests.get(position).getParams()
                + " failed: "
                + error.getCode()
                + " "
                + error.getMessage());
      }
      answers.set(position, parsed);
    }
    return new Result<>(answers, body.length);
  }

  private byte[] post(byte[] json, int calls) throws EthRpcException {
    okhttp3.Request request =
        new okhttp3.Request.Builder().url(url).post(RequestBody.create(json, JSON)).build();
    try (okhttp3.Response response = http.newCall(request).execute()) {
      ResponseBody body = response.body();
      if (!response.isSuccessful() || body == null) {
        throw new EthRpcException(
            "batch of "
                + calls
                + " calls to "
                + shownUrl
                + ": HTTP "
                + response.code()
                + " "
                + response.message());
      }
      try (InputStream in = body.byteStream()) {
        byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxResponseBytes + 1));
        if (bytes.length > maxResponseBytes) {
          throw new ResponseTooLargeException(
              "answer to a batch of " + calls + " calls is over " + maxResponseBytes + " bytes");
        }
        return bytes;
      }
    } catch (EthRpcException e) {
      throw e;
    } catch (IOException e) {
      throw new EthRpcException(
          "batch of " + calls + " calls to " + shownUrl + " failed: " + e.getMessage(), e);
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 300 ? s : s.substring(0, 300) + "...";
  }
}
