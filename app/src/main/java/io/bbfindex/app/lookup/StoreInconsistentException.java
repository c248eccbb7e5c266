package io.bbfindex.app.lookup;

/**
 * The node's stored data contradicts itself where a lookup had to read it (e.g. a hashed txindex
 * row's block bytes are not what the block's header commits to), so the lookup has no answer it can
 * stand behind: neither "present" nor "absent". Counted by {@link LookupService} and answered as
 * 500 {@code store_inconsistent} naming the file and position.
 */
public final class StoreInconsistentException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String message;

  public StoreInconsistentException(String message, Throwable cause) {
    super(message, cause);
    this.message = message;
  }

  /** What went wrong: there always is a message. */
  @Override
  public String getMessage() {
    return message;
  }
}
