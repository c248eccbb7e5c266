package io.bbfindex.eth;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How the Ethereum index is built and followed.
 *
 * @param rpcUrl the node's HTTP JSON-RPC endpoint
 * @param store the directory of range filters, records and summary
 * @param rangeBits each history range holds {@code 2^rangeBits} blocks (default {@value
 *     #DEFAULT_RANGE_BITS})
 * @param finalityDepth blocks below the head taken as final; negative: ask the node for its {@code
 *     finalized} block, and use {@value #DEFAULT_DEPTH} when it has none
 * @param fpr target false-positive rate of each filter
 * @param poll how often the head and the pending pool are polled (at most 1 s)
 * @param rpcTimeout OkHttp's connect, read and write timeout (a whole call gets three times it)
 */
public record EthConfig(
    String rpcUrl,
    Path store,
    int rangeBits,
    int finalityDepth,
    double fpr,
    Duration poll,
    Duration rpcTimeout) {
  public static final int DEFAULT_RANGE_BITS = 14;
  public static final int DEFAULT_DEPTH = 64;
  public static final double DEFAULT_FPR = 0.01;
  public static final Duration DEFAULT_POLL = Duration.ofMillis(250);
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  /**
   * @throws IllegalArgumentException naming the first parameter out of range
   */
  public EthConfig {
    Objects.requireNonNull(rpcUrl, "rpcUrl");
    Objects.requireNonNull(store, "store");
    if (!rpcUrl.startsWith("http://") && !rpcUrl.startsWith("https://")) {
      throw new IllegalArgumentException("the RPC URL must be http:// or https://: " + rpcUrl);
    }
    if (rangeBits < 0 || rangeBits > 20) {
      throw new IllegalArgumentException("rangeBits must be in [0, 20]: " + rangeBits);
    }
    if (!(fpr > 0 && fpr < 1)) {
      throw new IllegalArgumentException("fpr must be in (0, 1): " + fpr);
    }
    if (poll.isNegative() || poll.isZero() || poll.compareTo(Duration.ofSeconds(1)) > 0) {
      throw new IllegalArgumentException("poll must be in (0, 1 s]: " + poll);
    }
  }

  /**
   * Defaults for everything but the node and the store; the finalized block comes from the node.
   */
  public static EthConfig of(String rpcUrl, Path store) {
    return new EthConfig(
        rpcUrl, store, DEFAULT_RANGE_BITS, -1, DEFAULT_FPR, DEFAULT_POLL, DEFAULT_TIMEOUT);
  }

  public EthConfig withRangeBits(int bits) {
    return new EthConfig(rpcUrl, store, bits, finalityDepth, fpr, poll, rpcTimeout);
  }

  public EthConfig withFinalityDepth(int depth) {
    return new EthConfig(rpcUrl, store, rangeBits, depth, fpr, poll, rpcTimeout);
  }

  public EthConfig withPoll(Duration every) {
    return new EthConfig(rpcUrl, store, rangeBits, finalityDepth, fpr, every, rpcTimeout);
  }
}
