package io.bbfindex.eth;

import java.io.IOException;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.OkHttpClient;
import org.web3j.protocol.Web3j;
import org.web3j.protocol.core.DefaultBlockParameter;
import org.web3j.protocol.core.DefaultBlockParameterName;
import org.web3j.protocol.core.Request;
import org.web3j.protocol.core.Response;
import org.web3j.protocol.core.methods.response.EthBlock;
import org.web3j.protocol.core.methods.response.EthFilter;
import org.web3j.protocol.core.methods.response.EthLog;
import org.web3j.protocol.core.methods.response.Transaction;
import org.web3j.protocol.http.HttpService;

/**
 * The node, through web3j over HTTP JSON-RPC: head and finalized block numbers, blocks with their
 * transaction hashes in batches, new pending transactions, and single transaction lookups. Every
 * call is counted by method in {@link #calls()}.
 *
 * <p>Batches of {@code eth_getBlockByNumber(n, false)} hold at most {@value #MAX_BATCH} calls (geth
 * refuses more) and are sized from the bytes per block seen so far to stay near {@value
 * #TARGET_RESPONSE_BYTES} bytes, far under the 25 MB that nodes cap responses at; an answer over
 * {@value #MAX_RESPONSE_BYTES} bytes is refused and the range retried in halves.
 *
 * <p>Thread-safe (OkHttp and web3j are); the adaptive batch size is a hint shared without locking.
 */
public final class EthRpc implements AutoCloseable {
  /** The JSON-RPC methods this client sends (the metric's tag values). */
  public static final java.util.List<String> METHODS =
      java.util.List.of(
          "eth_blockNumber",
          "eth_chainId",
          "eth_getBlockByNumber",
          "eth_getTransactionByHash",
          "eth_newPendingTransactionFilter",
          "eth_getFilterChanges");

  /** Most calls in one batch. */
  public static final int MAX_BATCH = 1_000;

  static final long TARGET_RESPONSE_BYTES = 4L << 20;
  static final long MAX_RESPONSE_BYTES = 16L << 20;

  private final String url;
  private final OkHttpClient http;
  private final Web3j web3j;
  private final JsonRpcBatch batch;

  /**
   * Bytes a batch's answer should come near: a quarter of the limit, at most {@value
   * #TARGET_RESPONSE_BYTES}.
   */
  private final long targetResponseBytes;

  private final RpcCalls calls = new RpcCalls();

  /**
   * web3j's ids come from one JVM-wide counter already; ours make each batch's ids plainly
   * distinct.
   */
  private final AtomicLong nextId = new AtomicLong(1);

  private volatile int blocksPerBatch = 100;

  private EthRpc(String url, OkHttpClient http, long maxResponseBytes) {
    this.url = url;
    this.http = http;
    this.web3j = Web3j.build(new HttpService(url, http));
    this.batch = new JsonRpcBatch(http, url, redactedUrl(url), maxResponseBytes);
    this.targetResponseBytes = Math.min(TARGET_RESPONSE_BYTES, maxResponseBytes / 4);
  }

  /**
   * A client of the node at {@code url}. OkHttp's 10 s defaults are replaced: {@code timeout}
   * bounds connecting, each read and write, and a whole call (a batch of large blocks can take
   * longer than a small call should).
   */
  public static EthRpc connect(String url, Duration timeout) {
    return connect(url, timeout, MAX_RESPONSE_BYTES);
  }

  /** As {@link #connect(String, Duration)} with another response size limit (tests). */
  static EthRpc connect(String url, Duration timeout, long maxResponseBytes) {
    OkHttpClient http =
        new OkHttpClient.Builder()
            .connectTimeout(timeout)
            .readTimeout(timeout)
            .writeTimeout(timeout)
            .callTimeout(timeout.multipliedBy(3))
            .retryOnConnectionFailure(false)
            .build();
    return new EthRpc(url, http, maxResponseBytes);
  }

  public String url() {
    return url;
  }

  /**
   * The URL without user info, path or query, which may hold a provider's API key: what logs and
   * status pages may show.
   */
  public String redactedUrl() {
    return redactedUrl(url);
  }

  private static String redactedUrl(String url) {
    try {
      java.net.URI u = java.net.URI.create(url);
      return u.getScheme() + "://" + u.getHost() + (u.getPort() < 0 ? "" : ":" + u.getPort());
    } catch (IllegalArgumentException e) {
      return "(unparsable URL)";
    }
  }

  /** Calls sent so far, by method. */
  public RpcCalls calls() {
    return calls;
  }

  /** {@code eth_blockNumber}. */
  public long headNumber() throws EthRpcException {
    return send(web3j.ethBlockNumber()).getBlockNumber().longValueExact();
  }

  /** {@code eth_chainId}: the chain the node is on (EIP-155). */
  public long chainId() throws EthRpcException {
    return send(web3j.ethChainId()).getChainId().longValueExact();
  }

  /**
   * The number of the node's {@code finalized} block, or empty when the node does not report one
   * (an error answer or no block).
   *
   * @throws EthRpcException when the node cannot be reached
   */
  public OptionalLong finalizedNumber() throws EthRpcException {
    EthBlock answer;
    try {
      answer = send(web3j.ethGetBlockByNumber(DefaultBlockParameterName.FINALIZED, false));
    } catch (ErrorAnswerException e) {
      return OptionalLong.empty();
    }
    EthBlock.Block block = answer.getBlock();
    return block == null || block.getNumber() == null
        ? OptionalLong.empty()
        : OptionalLong.of(block.getNumber().longValueExact());
  }

  /** Block {@code number} with its transaction hashes ({@code eth_getBlockByNumber(n, false)}). */
  public BlockTxs block(long number) throws EthRpcException {
    return blocks(number, number).getFirst();
  }

  /**
   * Blocks {@code from .. to} (inclusive) in order, fetched in batches matched by id.
   *
   * @throws EthRpcException if a batch fails or a block is missing (beyond the node's head)
   */
  public List<BlockTxs> blocks(long from, long to) throws EthRpcException {
    List<BlockTxs> out =
        new ArrayList<>((int) Math.min(Integer.MAX_VALUE, Math.max(0, to - from + 1)));
    long next = from;
    while (next <= to) {
      int size = (int) Math.min(blocksPerBatch, to - next + 1);
      List<Request<?, EthBlock>> requests = new ArrayList<>(size);
      for (long n = next; n < next + size; n++) {
        Request<?, EthBlock> r =
            web3j.ethGetBlockByNumber(DefaultBlockParameter.valueOf(BigInteger.valueOf(n)), false);
        r.setId(nextId.getAndIncrement());
        requests.add(r);
      }
      calls.count("eth_getBlockByNumber", size);
      JsonRpcBatch.Result<EthBlock> result;
      try {
        result = batch.send(requests, EthBlock.class);
      } catch (JsonRpcBatch.ResponseTooLargeException e) {
        if (size == 1) {
          throw e;
        }
        blocksPerBatch = Math.max(1, size / 2);
        continue;
      }
      for (int i = 0; i < size; i++) {
        out.add(toBlockTxs(next + i, result.answers().get(i).getBlock()));
      }
      long perBlock = Math.max(1, result.responseBytes() / size);
      blocksPerBatch = Math.clamp(targetResponseBytes / perBlock, 1, MAX_BATCH);
      next += size;
    }
    return out;
  }

  private static BlockTxs toBlockTxs(long expected, EthBlock.Block block) throws EthRpcException {
    if (block == null) {
      throw new EthRpcException("node has no block " + expected);
    }
    long number = block.getNumber().longValueExact();
    if (number != expected) {
      throw new EthRpcException("asked for block " + expected + ", got block " + number);
    }
    List<TxHash> txs = new ArrayList<>(block.getTransactions().size());
    for (EthBlock.TransactionResult<?> t : block.getTransactions()) {
      if (!(t.get() instanceof String hash)) {
        throw new EthRpcException(
            "block " + number + " lists full transactions; asked for hashes only");
      }
      txs.add(TxHash.parse(hash));
    }
    return new BlockTxs(
        number, TxHash.parse(block.getHash()), TxHash.parse(block.getParentHash()), txs);
  }

  /**
   * {@code eth_newPendingTransactionFilter}: the id of a filter of transactions entering the pool.
   */
  public BigInteger newPendingTransactionFilter() throws EthRpcException {
    EthFilter f = send(web3j.ethNewPendingTransactionFilter());
    return f.getFilterId();
  }

  /**
   * {@code eth_getFilterChanges}: pending transaction hashes seen since the last call.
   *
   * @throws ErrorAnswerException when the node no longer knows the filter (they expire)
   */
  public List<TxHash> pendingSince(BigInteger filterId) throws EthRpcException {
    EthLog log = send(web3j.ethGetFilterChanges(filterId));
    List<TxHash> out = new ArrayList<>();
    if (log.getLogs() != null) {
      for (EthLog.LogResult<?> r : log.getLogs()) {
        if (r.get() instanceof String hash) {
          out.add(TxHash.parse(hash));
        }
      }
    }
    return out;
  }

  /** {@code eth_getTransactionByHash}: empty when the node does not know the hash. */
  public Optional<Transaction> transactionByHash(TxHash hash) throws EthRpcException {
    return send(web3j.ethGetTransactionByHash(hash.hex())).getTransaction();
  }

  /** The node answered a call with a JSON-RPC error. */
  public static final class ErrorAnswerException extends EthRpcException {
    ErrorAnswerException(String message) {
      super(message);
    }
  }

  private <T extends Response<?>> T send(Request<?, T> request) throws EthRpcException {
    calls.count(request.getMethod(), 1);
    T answer;
    try {
      answer = request.send();
    } catch (IOException e) {
      throw new EthRpcException(
          request.getMethod() + " to " + redactedUrl() + " failed: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      // web3j reports unreadable answers as unchecked Jackson exceptions.
      throw new EthRpcException(
          request.getMethod() + " to " + redactedUrl() + ": unreadable answer: " + e.getMessage(),
          e);
    }
    if (answer.hasError()) {
      throw new ErrorAnswerException(
          request.getMethod()
              + " failed: "
              + answer.getError().getCode()
              + " "
              + answer.getError().getMessage());
    }
    return answer;
  }

  @Override
  public void close() {
    web3j.shutdown();
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
  }
}
