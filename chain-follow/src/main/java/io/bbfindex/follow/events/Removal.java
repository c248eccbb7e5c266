package io.bbfindex.follow.events;

import io.bbfindex.ingest.encoding.Hash32;
import java.util.Objects;

/**
 * Why a tx left the mempool, as far as the node can tell afterwards: ZMQ's {@code R} carries no
 * reason, so it is worked out for the txids somebody watches ({@link FollowEvents#watch}) from
 * their inputs; for the others it stays {@link Unresolved}.
 */
public sealed interface Removal {
  /** A short stable name: {@code replaced}, {@code conflict}, {@code evicted}, {@code unknown}. */
  String reason();

  /** A mempool tx now spends one of its inputs: {@code by} replaced it (RBF, full or signalled). */
  record Replaced(Hash32 by) implements Removal {
    public Replaced {
      Objects.requireNonNull(by, "by");
    }

    @Override
    public String reason() {
      return "replaced";
    }
  }

  /** One of its inputs is spent by a confirmed tx: a block conflicted it out. */
  record Conflict() implements Removal {
    @Override
    public String reason() {
      return "conflict";
    }
  }

  /**
   * Its inputs are all unspent and no mempool tx spends them: the node dropped it (size limit,
   * expiry, a reorg's cleanup).
   */
  record Evicted() implements Removal {
    @Override
    public String reason() {
      return "evicted";
    }
  }

  /** Nobody watched it (no inputs kept), or the node could not be asked. */
  record Unresolved() implements Removal {
    @Override
    public String reason() {
      return "unknown";
    }
  }
}
