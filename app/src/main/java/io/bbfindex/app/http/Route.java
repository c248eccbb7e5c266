package io.bbfindex.app.http;

import io.bbfindex.app.eth.EthApi;
import io.bbfindex.app.wallet.WalletApi;
import io.netty.handler.codec.http.HttpMethod;

/**
 * The API's routes, each with the one method it accepts; {@link #tag()} is the {@code route} tag of
 * {@code bbf_http_request_seconds} (stable: dashboards select on it).
 */
enum Route {
  TX("tx", HttpMethod.GET),
  TX_BATCH("tx_batch", HttpMethod.POST),
  BLOCK("block", HttpMethod.GET),
  FILTERS("filters", HttpMethod.GET),
  STATUS("status", HttpMethod.GET),
  METRICS("metrics", HttpMethod.GET),
  LIVEZ("livez", HttpMethod.GET),
  READYZ("readyz", HttpMethod.GET),
  ETH_TX("eth_tx", HttpMethod.GET),
  ETH_TX_BATCH("eth_tx_batch", HttpMethod.POST),
  ETH_STATUS("eth_status", HttpMethod.GET),
  TX_HEX("tx_hex", HttpMethod.GET),
  TX_RAW("tx_raw", HttpMethod.GET),
  TX_MERKLE_PROOF("tx_merkle_proof", HttpMethod.GET),
  OPENAPI("openapi", HttpMethod.GET),
  /** The esplora-compatible routes under {@code --esplora-prefix}; they check their own methods. */
  ESPLORA("esplora", HttpMethod.GET),
  /** Any path no route matches, and requests the codec could not decode. */
  OTHER("other", null);

  static final String TX_PREFIX = "/v1/tx/";
  static final String TX_BATCH_PATH = "/v1/tx/lookup";
  static final String BLOCK_PREFIX = "/v1/block/";
  static final String OPENAPI_PATH = "/v1/openapi.json";

  private final String tag;

  @SuppressWarnings("ImmutableEnumChecker") // Netty's HttpMethod constants are never mutated
  private final HttpMethod method;

  Route(String tag, HttpMethod method) {
    this.tag = tag;
    this.method = method;
  }

  String tag() {
    return tag;
  }

  HttpMethod method() {
    return method;
  }

  /**
   * The route of a path (query string already cut off). {@code /v1/tx/lookup} is the batch route;
   * any other {@code /v1/tx/...} is a single lookup whose id is validated later, so a malformed id
   * gets a 400 naming the problem rather than a 404.
   */
  static Route of(String path) {
    if (path.startsWith(EthApi.TX_PREFIX)) {
      return path.equals(EthApi.TX_BATCH_PATH) ? ETH_TX_BATCH : ETH_TX;
    }
    if (path.startsWith(TX_PREFIX)) {
      if (path.equals(TX_BATCH_PATH)) {
        return TX_BATCH;
      }
      if (path.endsWith(WalletApi.HEX)) {
        return TX_HEX;
      }
      if (path.endsWith(WalletApi.RAW)) {
        return TX_RAW;
      }
      return path.endsWith(WalletApi.MERKLE_PROOF) ? TX_MERKLE_PROOF : TX;
    }
    if (path.startsWith(BLOCK_PREFIX)) {
      return BLOCK;
    }
    return switch (path) {
      case "/v1/filters" -> FILTERS;
      case "/v1/status" -> STATUS;
      case "/metrics" -> METRICS;
      case "/livez" -> LIVEZ;
      case "/readyz" -> READYZ;
      case OPENAPI_PATH -> OPENAPI;
      case EthApi.STATUS_PATH -> ETH_STATUS;
      default -> OTHER;
    };
  }
}
