package io.bbfindex.app.wallet;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bbfindex.app.lookup.ChainStatus;
import io.bbfindex.app.lookup.TxAnswer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The answers of the {@code /v1/tx/{txid}/hex}, {@code /raw} and {@code /merkle-proof} routes
 * ({@link WalletRoutes}): a transaction's stored bytes, re-hashed before they leave, and its merkle
 * branch from its block's txids.
 */
public final class WalletApi {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final VerifiedReads reads;

  public WalletApi(VerifiedReads reads) {
    this.reads = Objects.requireNonNull(reads, "reads");
  }

  public VerifiedReads reads() {
    return reads;
  }

  /** {@code /hex}: the stored serialization as lower-case hex, text/plain. */
  public Reply hex(String txid) {
    byte[] bytes = reads.tx(VerifiedReads.parseTxid(txid)).bytes();
    return Reply.ok(
        Reply.TEXT, HexFormat.of().formatHex(bytes).getBytes(StandardCharsets.US_ASCII));
  }

  /** {@code /raw}: the stored serialization, application/octet-stream. */
  public Reply raw(String txid) {
    return Reply.ok(Reply.OCTETS, reads.tx(VerifiedReads.parseTxid(txid)).bytes());
  }

  /** {@code /merkle-proof}: the transaction's branch in its (active-chain) block. */
  public Reply merkleProof(String txid) {
    return json(proof(VerifiedReads.parseTxid(txid)).json());
  }

  /**
   * The merkle proof of {@code txid} (internal order) in the block holding it; 404 when it is in no
   * block of the active chain.
   */
  public MerkleProof proof(byte[] txid) {
    TxAnswer at = reads.locate(txid);
    if (at.status() != ChainStatus.CONFIRMED) {
      throw WalletException.notFound(
          "not_confirmed", "the transaction is " + at.status().json() + ", in no active block");
    }
    VerifiedTxids block = reads.txids(reads.blockByHash(at.blockHash()));
    int pos = reads.position(block, txid);
    return MerkleProof.of(block, pos);
  }

  static Reply json(Object body) {
    try {
      return Reply.ok(Reply.JSON, MAPPER.writeValueAsBytes(body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise " + body.getClass().getSimpleName(), e);
    }
  }
}
