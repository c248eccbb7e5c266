package io.bbfindex.app.wallet;

/**
 * A wallet route's refusal: the HTTP status, a stable machine-readable code and a detail for
 * people. Each API dialect renders it its own way (JSON for {@code /v1}, plain text for esplora).
 */
public final class WalletException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private static final System.Logger LOG = System.getLogger(WalletException.class.getName());

  private final int status;
  private final String code;
  private final String detail;

  public WalletException(int status, String code, String detail) {
    super(detail);
    this.detail = detail;
    this.status = status;
    this.code = code;
  }

  public int status() {
    return status;
  }

  public String code() {
    return code;
  }

  public String detail() {
    return detail;
  }

  /**
   * A refusal caused by a failure on the server's side ({@code cause}: the node did not answer, a
   * file could not be read): the client gets {@code detail}, the log gets {@code detail} with the
   * cause. WHY: a cause's text names exception classes and local paths (the node's cookie file, the
   * data directory), which an error body must not hand out.
   */
  public static WalletException causedBy(int status, String code, String detail, Exception cause) {
    LOG.log(System.Logger.Level.WARNING, code + ": " + detail, cause);
    return new WalletException(status, code, detail + "; the reason is in the server's log");
  }

  static WalletException notFound(String code, String detail) {
    return new WalletException(404, code, detail);
  }

  static WalletException badRequest(String code, String detail) {
    return new WalletException(400, code, detail);
  }
}
