package io.bbfindex.app.wallet;

/**
 * A wallet route's refusal: the HTTP status, a stable machine-readable code and a detail for
 * people. Each API dialect renders it its own way (JSON for {@code /v1}, plain text for esplora).
 */
public final class WalletException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String code;

  public WalletException(int status, String code, String detail) {
    super(detail);
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
    return getMessage();
  }

  static WalletException notFound(String code, String detail) {
    return new WalletException(404, code, detail);
  }

  static WalletException badRequest(String code, String detail) {
    return new WalletException(400, code, detail);
  }
}
