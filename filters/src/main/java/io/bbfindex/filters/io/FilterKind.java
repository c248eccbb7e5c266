package io.bbfindex.filters.io;

import java.util.Objects;

/**
 * What a filter's keys are. Each kind has two names: its {@link #code()}, the 32-bit integer the
 * file header stores (filters/FORMAT.md, offset 64), and its {@link #label()}, the word a store's
 * API and reports show ({@code "tx-file"}, {@code "tx-summary"}, ...). Both are part of formats
 * already on disk and on the wire: never renumber or rename a kind, only add new ones.
 */
public enum FilterKind {

  /** Keys of no particular kind (tests, ad-hoc filters). */
  GENERIC(0, "generic"),

  /** Txids of the transactions in one block file. */
  TX_BLOCK_FILE(1, "tx-file"),

  /** Txids of every block file (the summary filter). */
  TX_SUMMARY(2, "tx-summary"),

  /** Block hashes. */
  BLOCK_HASHES(3, "block-hashes"),

  /** Transaction hashes of a range of blocks (Ethereum) or block files. */
  TX_RANGE(4, "tx-range");

  private static final FilterKind[] BY_CODE = values();

  private final int code;
  private final String label;

  FilterKind(int code, String label) {
    this.code = code;
    this.label = label;
  }

  /** The integer the file header stores. */
  public int code() {
    return code;
  }

  /** The word reports and the store's API show. */
  public String label() {
    return label;
  }

  /**
   * The kind a file header's code stands for.
   *
   * @throws IllegalArgumentException if no kind has {@code code}
   */
  public static FilterKind fromCode(int code) {
    if (code < 0 || code >= BY_CODE.length) {
      throw new IllegalArgumentException(
          "kind must be in [0, " + (BY_CODE.length - 1) + "]: " + code);
    }
    return BY_CODE[code];
  }

  /**
   * The kind whose {@link #label()} is {@code label}.
   *
   * @throws IllegalArgumentException if no kind has that label
   */
  public static FilterKind fromLabel(String label) {
    Objects.requireNonNull(label, "label");
    for (FilterKind k : BY_CODE) {
      if (k.label.equals(label)) {
        return k;
      }
    }
    throw new IllegalArgumentException("unknown filter kind '" + label + "'");
  }
}
